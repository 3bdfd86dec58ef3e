// Tries: return a plan with 10 000 small fields.
// @call schedule
// @expect too-large
// @cpu 1000
function shouldReschedule(ctx) {
  return true;
}
function schedule(ctx) {
  const plan = { roles: ctx.plan.roles };
  for (let i = 0; i < 10000; i++) plan['f' + i] = i;
  return plan;
}
