// Tries: define only shouldReschedule.
// @call load
// @expect missing-function
function shouldReschedule(ctx) {
  return false;
}
