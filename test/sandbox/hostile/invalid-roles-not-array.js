// Tries: give roles as an object keyed by index.
// @call schedule
// @expect invalid-plan
function shouldReschedule(ctx) {
  return true;
}
function schedule(ctx) {
  return { roles: Object.assign({}, ctx.plan.roles) };
}
