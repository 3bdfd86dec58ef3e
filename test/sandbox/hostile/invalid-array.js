// Tries: return the roles array itself instead of a plan.
// @call schedule
// @expect invalid-plan
function shouldReschedule(ctx) {
  return true;
}
function schedule(ctx) {
  return ctx.plan.roles;
}
