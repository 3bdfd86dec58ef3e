// Tries: make the plan depend on Math.random (a random number of roles), then break Math.random for later.
// The failure must be the same for two sandboxes with the same seed.
// @call schedule
// @expect invalid-plan
function shouldReschedule(ctx) {
  return true;
}
function schedule(ctx) {
  const n = 20 + Math.floor(Math.random() * 1000);
  const roles = [];
  for (let i = 0; i < n; i++) roles.push(Math.random() < 0.5 ? 'P' : 'D');
  Math.random = null;
  return { roles };
}
