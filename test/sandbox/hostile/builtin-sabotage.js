// Tries: replace the builtins a sandbox might use to read the answer (JSON, Object, Array, Reflect, String
// methods), then return a plan one role short: the short plan must still be seen for what it is.
// @call schedule
// @expect invalid-plan
function shouldReschedule(ctx) {
  return true;
}
function schedule(ctx) {
  const roles = ctx.plan.roles.slice(1);
  const boom = function () { throw new Error('sabotaged'); };
  JSON.stringify = boom;
  JSON.parse = boom;
  Object.keys = boom;
  Object.getOwnPropertyDescriptor = boom;
  Object.hasOwn = boom;
  Object.getPrototypeOf = boom;
  Array.isArray = boom;
  Array.prototype.join = boom;
  Array.prototype.push = boom;
  Reflect.apply = boom;
  String.prototype.slice = boom;
  String.prototype.split = boom;
  String.prototype.includes = boom;
  return { roles };
}
