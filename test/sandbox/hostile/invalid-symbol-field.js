// Tries: put a symbol in the plan.
// @call schedule
// @expect invalid-plan
function shouldReschedule(ctx) {
  return true;
}
function schedule(ctx) {
  return { roles: ctx.plan.roles, tag: Symbol('x') };
}
