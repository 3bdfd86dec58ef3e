// Tries: throw undefined from shouldReschedule.
// @call shouldReschedule
// @expect throw
function shouldReschedule(ctx) {
  throw undefined;
}
function schedule(ctx) {
  return { roles: ctx.plan.roles };
}
