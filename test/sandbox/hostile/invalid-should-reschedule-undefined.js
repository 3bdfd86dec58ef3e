// Tries: forget to return from shouldReschedule.
// @call shouldReschedule
// @expect invalid-plan
function shouldReschedule(ctx) {
  ctx.now > 0;
}
function schedule(ctx) {
  return { roles: ctx.plan.roles };
}
