// Tries: leave no prefill node.
// @call schedule
// @expect invalid-plan
function shouldReschedule(ctx) {
  return true;
}
function schedule(ctx) {
  return { roles: ctx.nodes.map(() => 'D') };
}
