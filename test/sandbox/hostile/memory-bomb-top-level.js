// Tries: exhaust memory while the policy is loading.
// @call load
// @expect memory
// @wall 10000
const hoard = [];
for (;;) hoard.push(new Array(100000).fill(1.5));
function shouldReschedule(ctx) {
  return true;
}
function schedule(ctx) {
  return { roles: ctx.plan.roles };
}
