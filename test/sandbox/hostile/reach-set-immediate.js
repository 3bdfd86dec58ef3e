// Tries: leave work behind with setImmediate.
// @call schedule
// @expect throw
function shouldReschedule(ctx) {
  return true;
}
function schedule(ctx) {
  setImmediate(function () {});
  return { roles: ctx.plan.roles };
}
