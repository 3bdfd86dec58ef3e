// Tries: find a host object on the global (require, process, module, Buffer, an ivm handle) and use it.
// @call schedule
// @expect throw
function shouldReschedule(ctx) {
  return true;
}
function schedule(ctx) {
  const g = Function('return this')();
  const host = g.process || g.require || g.module || g.Buffer || g.global || g._ivm || g.ivm;
  host.exit(1);
  return { roles: ctx.plan.roles };
}
