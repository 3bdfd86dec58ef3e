// Tries: return the plan through a promise.
// @call schedule
// @expect invalid-plan
function shouldReschedule(ctx) {
  return true;
}
function schedule(ctx) {
  return Promise.resolve({ roles: ctx.plan.roles });
}
