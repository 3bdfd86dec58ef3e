// Tries: leave recurring work behind with setInterval.
// @call schedule
// @expect throw
function shouldReschedule(ctx) {
  return true;
}
function schedule(ctx) {
  setInterval(function () {}, 1);
  return { roles: ctx.plan.roles };
}
