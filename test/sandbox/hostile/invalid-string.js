// Tries: return the plan as JSON text.
// @call schedule
// @expect invalid-plan
function shouldReschedule(ctx) {
  return true;
}
function schedule(ctx) {
  return JSON.stringify({ roles: ctx.plan.roles });
}
