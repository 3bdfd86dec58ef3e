// Tries: escape through the Function constructor of the global object to reach process.
// @call schedule
// @expect throw
function shouldReschedule(ctx) {
  return true;
}
function schedule(ctx) {
  const fn = (function () { return this; }).constructor.constructor('return process');
  fn().exit(1);
  return { roles: ctx.plan.roles };
}
