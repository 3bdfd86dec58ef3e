// Tries: load a host module with dynamic import() (isolated-vm refuses it from outside the isolate).
// @call schedule
// @expect throw
function shouldReschedule(ctx) {
  return true;
}
function schedule(ctx) {
  return import('node:fs');
}
