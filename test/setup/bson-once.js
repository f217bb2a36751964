// Every `require('bson')` of a test file (the MongoDB driver's and mongoose's) gets the worker's one
// copy, loaded by test/setup/environment.js, which says why.
module.exports = globalThis.__ACCT_WORKER_BSON__;
