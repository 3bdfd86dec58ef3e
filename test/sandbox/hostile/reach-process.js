// Tries: end the host process through process.exit.
// @call schedule
// @expect throw
function shouldReschedule(ctx) {
  return true;
}
function schedule(ctx) {
  process.exit(1);
  return { roles: ctx.plan.roles };
}
