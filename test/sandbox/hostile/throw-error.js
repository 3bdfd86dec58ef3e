// Tries: throw an ordinary Error from schedule.
// @call schedule
// @expect throw
function shouldReschedule(ctx) {
  return true;
}
function schedule(ctx) {
  throw new Error('no plan today');
}
