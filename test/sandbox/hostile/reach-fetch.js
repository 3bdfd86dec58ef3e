// Tries: send data out over the network with fetch.
// @call schedule
// @expect throw
function shouldReschedule(ctx) {
  return true;
}
function schedule(ctx) {
  fetch('http://127.0.0.1:9/exfiltrate?now=' + ctx.now);
  return { roles: ctx.plan.roles };
}
