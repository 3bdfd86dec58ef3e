// Tries: allocate without bound in schedule to take the host process down with it.
// @call schedule
// @expect memory
// @wall 10000
function shouldReschedule(ctx) {
  return true;
}
function schedule(ctx) {
  const hoard = [];
  for (;;) hoard.push(new Array(100000).fill(ctx.now + 0.5));
}
