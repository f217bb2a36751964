// The test environment: jest's Node environment, plus one copy of bson per worker.
//
// bson allocates a 17 MB serialisation buffer when it loads (`MAXSIZE` in bson.cjs). Loaded into
// each test file's module registry, as jest does with every module, each file that touched MongoDB
// added one such buffer to its worker, and the workers held them across files: about 18 MB of
// `arrayBuffers` a file, most of a worker's 1 GB by the end of a run. Loaded here, by the worker's
// own `require`, bson (its buffer and its classes) is one per worker and handed to every file through
// test/setup/bson-once.js; it keeps no state between calls that a file could see from another.
const { TestEnvironment } = require('jest-environment-node');
const bson = require('bson');

class AccountStackEnvironment extends TestEnvironment {
  constructor(config, context) {
    super(config, context);
    this.global.__ACCT_WORKER_BSON__ = bson;
    // The dates bson reads from a document are made by the worker's Date, as the Buffers of a test
    // file are the worker's (jest hands every file the worker's Buffer): so is the files' Date, or a
    // stored date would not be `instanceof Date` in the code under test. Fake timers still replace it.
    this.global.Date = Date;
  }
}

module.exports = AccountStackEnvironment;
