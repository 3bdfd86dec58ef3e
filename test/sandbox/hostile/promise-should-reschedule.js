// Tries: declare shouldReschedule as an async function.
// @call shouldReschedule
// @expect invalid-plan
async function shouldReschedule(ctx) {
  return true;
}
function schedule(ctx) {
  return { roles: ctx.plan.roles };
}
