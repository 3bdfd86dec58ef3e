// Tries: define the entry points as values that are not functions.
// @call load
// @expect missing-function
var shouldReschedule = true;
var schedule = { roles: ['P', 'D'] };
