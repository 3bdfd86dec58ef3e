// Tries: an empty policy.
// @call load
// @expect missing-function
