// Tries: put a BigInt in the plan.
// @call schedule
// @expect invalid-plan
function shouldReschedule(ctx) {
  return true;
}
function schedule(ctx) {
  return { roles: ctx.plan.roles, budget: 10n };
}
