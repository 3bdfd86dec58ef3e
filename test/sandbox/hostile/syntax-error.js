// Tries: load source that does not parse.
// @call load
// @expect compile
function shouldReschedule(ctx) {
  return ctx.now >
}
function schedule(ctx) {
  return { roles: ctx.plan.roles };
}
