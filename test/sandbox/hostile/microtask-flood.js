// Tries: return normally but leave a promise chain that re-queues itself forever, so work runs after the call.
// @call shouldReschedule
// @expect timeout
// @wall 300
function shouldReschedule(ctx) {
  Promise.resolve().then(function again() { Promise.resolve().then(again); });
  return false;
}
function schedule(ctx) {
  return { roles: ctx.plan.roles };
}
