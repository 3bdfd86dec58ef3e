// Tries: leak ~16 MB per call in a global, so that no single call looks guilty (a generous CPU budget: the
// point is the leak, and collecting a nearly full heap is slow).
// @call shouldReschedule
// @repeat 40
// @expect memory
// @wall 10000
// @cpu 2000
const leaked = [];
function shouldReschedule(ctx) {
  for (let i = 0; i < 20; i++) leaked.push(new Array(100000).fill(ctx.now + i + 0.5));
  return false;
}
function schedule(ctx) {
  return { roles: ctx.plan.roles };
}
