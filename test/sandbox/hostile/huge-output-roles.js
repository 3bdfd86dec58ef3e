// Tries: return a million roles, to make the host copy and parse a huge answer.
// @call schedule
// @expect too-large
// @cpu 1000
function shouldReschedule(ctx) {
  return true;
}
function schedule(ctx) {
  return { roles: new Array(1000000).fill('P') };
}
