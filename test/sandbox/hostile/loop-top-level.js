// Tries: never finish loading, so that the sandbox cannot even be created.
// @call load
// @expect timeout
// @wall 300
while (true) {}
function shouldReschedule(ctx) {
  return true;
}
function schedule(ctx) {
  return { roles: ctx.plan.roles };
}
