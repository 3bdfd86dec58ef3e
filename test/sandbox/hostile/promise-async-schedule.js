// Tries: declare schedule as an async function.
// @call schedule
// @expect invalid-plan
function shouldReschedule(ctx) {
  return true;
}
async function schedule(ctx) {
  return { roles: ctx.plan.roles };
}
