// Tries: compile WebAssembly, which runs outside the JS heap.
// @call schedule
// @expect throw
function shouldReschedule(ctx) {
  return true;
}
function schedule(ctx) {
  new WebAssembly.Module(new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0]));
  return { roles: ctx.plan.roles };
}
