/* global expect */
// Two AppErrors are equal when their code, status, message and details are: jest 29 compares two
// Errors by their message alone, so `rejects.toEqual(AuthErrors.refreshMissing())` passed when the use
// case threw refreshMissingFromBrowser() (the same words, another `errors` field). Realm-safe: an
// error made in the worker's own realm (the stack's services run there) is recognised too.
const FIELDS = ['code', 'httpStatus', 'message', 'errors', 'retryAfterSeconds', 'headers'];
const isAppError = (value) => Object.prototype.toString.call(value) === '[object Error]' && value.name === 'AppError';

expect.addEqualityTesters([
  function appErrorsEqual(a, b, customTesters) {
    if (!isAppError(a) || !isAppError(b)) return undefined;
    return FIELDS.every((field) => this.equals(a[field], b[field], customTesters));
  },
]);
