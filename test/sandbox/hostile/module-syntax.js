// Tries: write the policy as an ES module (a script may not export).
// @call load
// @expect compile
export function shouldReschedule(ctx) {
  return true;
}
export function schedule(ctx) {
  return { roles: ctx.plan.roles };
}
