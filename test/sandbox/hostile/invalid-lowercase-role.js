// Tries: spell a role in lower case.
// @call schedule
// @expect invalid-plan
function shouldReschedule(ctx) {
  return true;
}
function schedule(ctx) {
  return { roles: ctx.plan.roles.map((r, i) => (i === 0 ? 'p' : r)) };
}
