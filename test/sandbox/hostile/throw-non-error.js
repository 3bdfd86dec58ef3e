// Tries: throw a value that is not an Error (an object with a hostile toString).
// @call schedule
// @expect throw
function shouldReschedule(ctx) {
  return true;
}
function schedule(ctx) {
  throw { toString() { throw new Error('cannot even describe me'); } };
}
