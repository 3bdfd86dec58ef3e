// Tries: define helpers but neither entry point.
// @call load
// @expect missing-function
function plan(ctx) {
  return { roles: ctx.plan.roles };
}
