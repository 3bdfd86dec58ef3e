// Tries: return a Proxy whose traps throw while the plan is read.
// @call schedule
// @expect throw
function shouldReschedule(ctx) {
  return true;
}
function schedule(ctx) {
  return new Proxy({ roles: ctx.plan.roles }, {
    ownKeys() { throw new Error('ownKeys trap'); },
    get() { throw new Error('get trap'); },
  });
}
