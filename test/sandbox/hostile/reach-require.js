// Tries: load node:fs with require and write a file.
// @call schedule
// @expect throw
function shouldReschedule(ctx) {
  return true;
}
function schedule(ctx) {
  require('fs').writeFileSync('/tmp/autopoiesis-escaped', 'out');
  return { roles: ctx.plan.roles };
}
