// Tries: return a plan without roles.
// @call schedule
// @expect invalid-plan
function shouldReschedule(ctx) {
  return true;
}
function schedule(ctx) {
  return { split: '4P5D' };
}
