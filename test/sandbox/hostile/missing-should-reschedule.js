// Tries: define only schedule.
// @call load
// @expect missing-function
function schedule(ctx) {
  return { roles: ctx.plan.roles };
}
