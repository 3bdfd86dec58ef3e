// Tries: return a plan whose roles is a getter that throws (it must never be called outside the policy's control).
// @call schedule
// @expect invalid-plan
function shouldReschedule(ctx) {
  return true;
}
function schedule(ctx) {
  return {
    get roles() {
      throw new Error('gotcha');
    },
  };
}
