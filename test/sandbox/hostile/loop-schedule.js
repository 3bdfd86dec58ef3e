// Tries: spin forever in schedule, with a try/finally that spins again (termination must not be catchable).
// @call schedule
// @expect timeout
// @wall 300
function shouldReschedule(ctx) {
  return true;
}
function schedule(ctx) {
  try {
    for (;;) {}
  } finally {
    for (;;) {}
  }
}
