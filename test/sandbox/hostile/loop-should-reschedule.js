// Tries: spin forever in shouldReschedule, holding the host thread.
// @call shouldReschedule
// @expect timeout
// @wall 300
function shouldReschedule(ctx) {
  for (;;) {}
}
function schedule(ctx) {
  return { roles: ctx.plan.roles };
}
