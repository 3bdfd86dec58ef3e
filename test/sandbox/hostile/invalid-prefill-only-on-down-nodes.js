// Tries: put every prefill role on a node that is down, so that no up node prefills.
// @call schedule
// @expect invalid-plan
function shouldReschedule(ctx) {
  return true;
}
function schedule(ctx) {
  return { roles: ctx.nodes.map((n) => (n.state === 'down' ? 'P' : 'D')) };
}
