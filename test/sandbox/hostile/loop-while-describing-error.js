// Tries: throw an error whose stack getter spins, to hang the sandbox while it describes the failure.
// @call schedule
// @expect timeout
// @wall 300
function shouldReschedule(ctx) {
  return true;
}
function schedule(ctx) {
  const e = new Error('look at my stack');
  Object.defineProperty(e, 'stack', { get() { for (;;) {} } });
  throw e;
}
