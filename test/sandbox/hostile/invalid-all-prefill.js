// Tries: leave no decode node.
// @call schedule
// @expect invalid-plan
function shouldReschedule(ctx) {
  return true;
}
function schedule(ctx) {
  return { roles: ctx.nodes.map(() => 'P') };
}
