// Tries: return a plan that contains itself.
// @call schedule
// @expect invalid-plan
function shouldReschedule(ctx) {
  return true;
}
function schedule(ctx) {
  const plan = { roles: ctx.plan.roles };
  plan.self = plan;
  return plan;
}
