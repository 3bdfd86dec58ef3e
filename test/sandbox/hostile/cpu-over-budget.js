// Tries: return, but only after spending several times the per-call CPU budget (100 ms) in a finite loop.
// @call shouldReschedule
// @expect timeout
// @wall 10000
function shouldReschedule(ctx) {
  const until = 0;
  let x = 0;
  for (let i = 0; i < 3e8; i++) x = (x + i) % 1000003;
  return x > until;
}
function schedule(ctx) {
  return { roles: ctx.plan.roles };
}
