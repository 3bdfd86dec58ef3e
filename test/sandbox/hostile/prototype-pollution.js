// Tries: pollute prototypes, inside the isolate and, through a __proto__ key in the plan, on the host.
// @call schedule
// @expect invalid-plan
Object.prototype.polluted = 'isolate';
Array.prototype.roles = ['P'];
Object.defineProperty(Object.prototype, 'get', { value: function () { return 'x'; }, configurable: true });
function shouldReschedule(ctx) {
  return true;
}
function schedule(ctx) {
  const roles = JSON.stringify(ctx.plan.roles);
  return JSON.parse('{"roles":' + roles + ',"__proto__":{"polluted":"host","isAdmin":true}}');
}
