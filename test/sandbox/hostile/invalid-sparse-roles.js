// Tries: return roles with a hole in them.
// @call schedule
// @expect invalid-plan
function shouldReschedule(ctx) {
  return true;
}
function schedule(ctx) {
  const roles = ctx.plan.roles.slice();
  delete roles[2];
  return { roles };
}
