// Tries: leave work behind with setTimeout.
// @call schedule
// @expect throw
function shouldReschedule(ctx) {
  return true;
}
function schedule(ctx) {
  setTimeout(function () { for (;;) {} }, 0);
  return { roles: ctx.plan.roles };
}
