// Tries: throw an Error whose stack and message getters throw in turn.
// @call schedule
// @expect throw
function shouldReschedule(ctx) {
  return true;
}
function schedule(ctx) {
  const e = new Error('x');
  Object.defineProperty(e, 'stack', { get() { throw new Error('stack getter'); } });
  Object.defineProperty(e, 'message', { get() { throw new Error('message getter'); } });
  throw e;
}
