// Tries: smuggle a function out in the plan.
// @call schedule
// @expect invalid-plan
function shouldReschedule(ctx) {
  return true;
}
function schedule(ctx) {
  return { roles: ctx.plan.roles, callback() { return 42; } };
}
