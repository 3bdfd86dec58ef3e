// Tries: answer shouldReschedule with a truthy number instead of a boolean.
// @call shouldReschedule
// @expect invalid-plan
function shouldReschedule(ctx) {
  return 1;
}
function schedule(ctx) {
  return { roles: ctx.plan.roles };
}
