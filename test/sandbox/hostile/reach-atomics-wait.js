// Tries: block the thread with Atomics.wait on shared memory.
// @call schedule
// @expect throw
function shouldReschedule(ctx) {
  return true;
}
function schedule(ctx) {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0);
  return { roles: ctx.plan.roles };
}
