// Tries: make the error description enormous through V8's Error.prepareStackTrace hook.
// @call shouldReschedule
// @expect throw
// @cpu 1000
Error.prepareStackTrace = function () { return 'x'.repeat(1000000); };
function shouldReschedule(ctx) {
  throw new Error('huge stack');
}
function schedule(ctx) {
  return { roles: ctx.plan.roles };
}
