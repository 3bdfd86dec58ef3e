// Tries: return a plan holding a 1 MB string.
// @call schedule
// @expect too-large
// @cpu 1000
function shouldReschedule(ctx) {
  return true;
}
function schedule(ctx) {
  return { roles: ctx.plan.roles, note: 'x'.repeat(1024 * 1024) };
}
