// Tries: allocate memory outside the JS heap (ArrayBuffers) until the host runs out.
// The isolate's allocator refuses once its limit is reached, which surfaces as a RangeError in the policy.
// @call schedule
// @expect throw
// @cpu 1000
function shouldReschedule(ctx) {
  return true;
}
function schedule(ctx) {
  const buffers = [];
  for (;;) buffers.push(new ArrayBuffer(16 * 1024 * 1024));
}
