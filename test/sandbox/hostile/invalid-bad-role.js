// Tries: use a role that does not exist.
// @call schedule
// @expect invalid-plan
function shouldReschedule(ctx) {
  return true;
}
function schedule(ctx) {
  return { roles: ctx.plan.roles.map((r, i) => (i === 0 ? 'X' : r)) };
}
