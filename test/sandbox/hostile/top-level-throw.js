// Tries: throw while the policy's top level runs.
// @call load
// @expect compile
function shouldReschedule(ctx) {
  return true;
}
function schedule(ctx) {
  return { roles: ctx.plan.roles };
}
throw new Error('refusing to load');
