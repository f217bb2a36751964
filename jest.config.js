// One jest run over every workspace; infrastructure is resolved once in the global setup.
const { scale } = require('./test/setup/time-scale');
// Each file compiled alone to CommonJS by swc, as tsconfig.base.json's isolatedModules already
// requires of the sources; types are checked by npm run lint (tsc), not here. ts-jest compiled with
// TypeScript itself, loaded in every worker: back to back on this VM (2026-11-29), a cold in-band run
// of test/e2e/openid-provider.response.test.ts took 28.7 s of CPU with it and 14.1 s with swc (warm:
// 12.1 and 9.7 s); the gateway's, the domain's and shared's tests 67 and 56 s cold, 52 and 54 s warm.
const swc = (syntax) => ({
  jsc: { parser: { syntax }, target: 'es2022', transform: { useDefineForClassFields: true } },
  // Packages (and the @acct/ names) are required where first used, not at the top: a file loads only
  // what it touches. Each file loads its modules again in its own registry, and a Redis store's test
  // loaded mongoose and amqplib through the harness, a configuration test express and the drivers
  // through a service's index.
  module: { type: 'commonjs', lazy: true },
  sourceMaps: 'inline',
});
// The packages that ship only ES modules (see transform).
const ESM_ONLY = 'openid-client|oauth4webapi|jose|oidc-provider';
/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: '<rootDir>/test/setup/environment.js',
  // AppErrors compared by code, status and details, not by message alone (app-errors.js).
  setupFilesAfterEnv: ['<rootDir>/test/setup/app-errors.js'],
  roots: ['<rootDir>/libs', '<rootDir>/services', '<rootDir>/test'],
  testMatch: ['**/test/**/*.test.ts'],
  // The multi-node runs are `npm run test:ha` (jest.ha.config.js): they start clusters of their own.
  // What each service's image installs is `npm run test:images`: four `npm ci` from the lockfile, a
  // sixth of a whole run's CPU (83 s of 520 s on 2026-11-28) for a property only a change of
  // dependencies or of the Dockerfile moves. CI runs both after this run (.ci/run).
  testPathIgnorePatterns: ['/node_modules/', '<rootDir>/test/ha/', '<rootDir>/test/process/image-dependencies.test.ts'],
  transform: {
    '^.+\\.ts$': ['@swc/jest', swc('typescript')],
    // openid-client and what it builds on ship only ES modules, which Node loads with require()
    // but jest's module system does not: they are compiled to CommonJS for the tests alone, file by
    // file. No other JavaScript is: the workspaces' built CommonJS, which the shared stack that the
    // global setup starts runs, used to be compiled too.
    [`/node_modules/(${ESM_ONLY})/.+\\.js$`]: ['@swc/jest', swc('ecmascript')],
  },
  transformIgnorePatterns: [`/node_modules/(?!(${ESM_ONLY})/)`],
  moduleNameMapper: {
    '^bson$': '<rootDir>/test/setup/bson-once.js',
    '^@acct/(shared|mongo-standin|verifier|client)$': '<rootDir>/libs/$1/src',
    '^@acct/shared/(http|mongo|redis|amqp|tracing|instrumentations|routes|languages)$': '<rootDir>/libs/shared/src/$1',
    '^@acct/test-harness/(.+)$': '<rootDir>/libs/test-harness/src/$1',
    '^@acct/test-stack/(.+)$': '<rootDir>/test/stack/src/$1',
    '^@acct/(gateway|auth|notifier|desktop)$': '<rootDir>/services/$1/src',
  },
  // Files that mostly wait run among the others, not three at a time at the end (sequencer.js).
  testSequencer: '<rootDir>/test/setup/sequencer.js',
  globalSetup: '<rootDir>/test/setup/global-setup.ts',
  globalTeardown: '<rootDir>/test/setup/global-teardown.ts',
  // Every run in a new order (the seed is printed; --seed=N repeats one): no test may lean on another.
  randomize: true,
  // On the run's time scale (test/setup/time-scale.js): a busy machine waits longer, not fails.
  testTimeout: Math.round(30_000 * scale),
  // Four workers on this 2-core VM, with the files that mostly wait spread among the others
  // (test/setup/sequencer.js). With three, the run was bound by CPU while the browser file ran and
  // had cores to spare after it: the machine (/proc/stat, every 2 s) was 92 to 99 % busy for the
  // first 90 s and 53 to 67 % for the next 30. Back to back on 2026-11-30 (TEST_TIME_SCALE=1.2):
  // three workers in jest's order 150.8 s, then 156.9 s (46 and 54 s of the two cores idle); four
  // with the spread order 141.6 s, then 144.6 s (15 and 19 s idle). Four in jest's order took
  // 150.2 s, and three with the spread order 155.3 s. On 2026-11-28, on a VM that was busy at three
  // (its CPU the bound throughout): 2 workers 302 s then 3 workers 238 s back to back, and on other
  // runs that day 3 workers 188 s and 4 workers 234 s. A run's deadlines follow the machine's load
  // (time-scale.js), so a busier machine waits longer rather than failing.
  maxWorkers: 4,
  // Globals handed to every module of a test file as its wrapper's parameters: a module there reads a
  // global through its vm context's interceptors, which V8 cannot cache (test/stack/src/services.ts),
  // and a parameter is a plain variable. A QR image's PNG filter (Math.abs three times a byte) took
  // about 100 ms an image in a test file and 3 ms in Node (2026-11-30). Only names no loaded module
  // declares at its top with const, let or class, which a parameter of the same name makes a
  // SyntaxError: not Buffer, process, Promise (bcrypt's `let Promise`), Symbol or Uint8Array
  // (readable-stream 4), Date (mongoose), Set or Boolean (asn1js), JSON, Function.
  sandboxInjectedGlobals: ['Math', 'Object', 'Array', 'Reflect', 'Error', 'String', 'Number', 'Map', 'WeakMap', 'ArrayBuffer', 'DataView', 'BigInt', 'RegExp', 'TypeError', 'RangeError', 'Proxy'],
};

// One copy of bson per worker (test/setup/environment.js says why): it was most of the buffers a
// worker kept across files (about 18 MB of `arrayBuffers` a file; now flat at 26-28 MB). What a
// worker still holds after a full collection grows over its first 15 or so files and then stays:
// 194-259 MB of heap at the end of a whole run, whichever files it ran (ACCT_MEMORY_PROBE, see
// test/setup/environment.js, 2026-11-28). That reading was wrong: on 2026-11-29, with 126 files, it
// grew by 15 to 30 MB with each end-to-end file (a finished file's module registry stays reachable:
// heap snapshots show paths through Node's vm context cleanup queue and through sockets whose
// listeners the file's context made) and reached 320 MB, past the 340 MB budget's room in two runs
// of four. Replacing such a worker (jest's workerIdleMemoryLimit at 280 MB) was tried: in a
// clean-clone CI run two workers were replaced and the file sent to one of them never finished, so
// the budget went up to 420 MB instead. Left to size its heap from the host, V8 let each worker reach 817 MB resident
// before collecting. So the workers get a heap budget instead of being recycled, as the production
// images do (Dockerfile, NODE_OPTIONS): jest forks its workers with the parent's execArgv, set here
// before any is forked (a program a test spawns gets none of it).
// Three whole runs on this VM with no recycling, sampled with ps every 0.5 s: no budget, 817 MB at
// most and 121 s; 400 MB, 558 MB at most; 340 MB, 503 MB at most and 131 s, every test passing, and
// the same three worker processes from start to end. A worker whose live heap outgrew the budget
// would fail the run with "heap out of memory", where recycling would hide it. test:ha's workers
// hold more (a failover run's clients and results: 326 MB live after one, 2026-11-28) and are still
// recycled (jest.ha.config.js).
require('./test/setup/heap-budget').budgetWorkers();
