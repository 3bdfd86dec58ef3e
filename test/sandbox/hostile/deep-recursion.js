// Tries: recurse without end to overflow the stack.
// @call schedule
// @expect throw
// @cpu 1000
function shouldReschedule(ctx) {
  return true;
}
function depth(n) {
  return depth(n + 1) + 1;
}
function schedule(ctx) {
  return { roles: ctx.plan.roles, depth: depth(0) };
}
