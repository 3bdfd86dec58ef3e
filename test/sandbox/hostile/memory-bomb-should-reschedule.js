// Tries: double a string and keep every copy, in shouldReschedule.
// @call shouldReschedule
// @expect memory
// @wall 10000
function shouldReschedule(ctx) {
  const keep = [];
  let s = 'kv';
  for (;;) {
    keep.push(s + keep.length);
    if (s.length < 1 << 20) s += s;
    keep.push(new Array(50000).fill(keep.length + 0.5));
  }
}
function schedule(ctx) {
  return { roles: ctx.plan.roles };
}
