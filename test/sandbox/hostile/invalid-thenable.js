// Tries: return a thenable instead of a plan.
// @call schedule
// @expect invalid-plan
function shouldReschedule(ctx) {
  return true;
}
function schedule(ctx) {
  return { roles: ctx.plan.roles, then(resolve) { resolve(1); } };
}
