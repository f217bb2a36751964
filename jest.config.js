// One jest run over every workspace; infrastructure is resolved once in the global setup.
const { scale } = require('./test/setup/time-scale');
/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: '<rootDir>/test/setup/environment.js',
  roots: ['<rootDir>/libs', '<rootDir>/services', '<rootDir>/test'],
  testMatch: ['**/test/**/*.test.ts'],
  // The multi-node runs are `npm run test:ha` (jest.ha.config.js): they start clusters of their own.
  // What each service's image installs is `npm run test:images`: four `npm ci` from the lockfile, a
  // sixth of a whole run's CPU (83 s of 520 s on 2026-11-28) for a property only a change of
  // dependencies or of the Dockerfile moves. CI runs both after this run (.ci/run).
  testPathIgnorePatterns: ['/node_modules/', '<rootDir>/test/ha/', '<rootDir>/test/process/image-dependencies.test.ts'],
  transform: {
    '^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/tsconfig.json', diagnostics: false }],
    // openid-client and what it builds on ship only ES modules, which Node loads with require()
    // but jest's module system does not: they are compiled to CommonJS for the tests alone.
    '^.+\\.js$': ['ts-jest', { tsconfig: { allowJs: true, module: 'commonjs', target: 'ES2022', esModuleInterop: true }, diagnostics: false }],
  },
  transformIgnorePatterns: ['/node_modules/(?!(openid-client|oauth4webapi|jose)/)'],
  moduleNameMapper: {
    '^bson$': '<rootDir>/test/setup/bson-once.js',
    '^@acct/(shared|mongo-standin|verifier|client)$': '<rootDir>/libs/$1/src',
    '^@acct/shared/(http|mongo|redis|amqp|tracing|instrumentations|routes)$': '<rootDir>/libs/shared/src/$1',
    '^@acct/test-harness/(.+)$': '<rootDir>/libs/test-harness/src/$1',
    '^@acct/test-stack/(.+)$': '<rootDir>/test/stack/src/$1',
    '^@acct/(gateway|auth|notifier|desktop)$': '<rootDir>/services/$1/src',
  },
  globalSetup: '<rootDir>/test/setup/global-setup.ts',
  globalTeardown: '<rootDir>/test/setup/global-teardown.ts',
  // Every run in a new order (the seed is printed; --seed=N repeats one): no test may lean on another.
  randomize: true,
  // On the run's time scale (test/setup/time-scale.js): a busy machine waits longer, not fails.
  testTimeout: Math.round(30_000 * scale),
  // Three workers on this 2-core VM: a third of the run is waiting (timers, the broker, the browser),
  // which a third worker fills, and each worker keeps fewer files' heaps (see below), so it spends
  // less on garbage collection too. Whole runs on 2026-11-28, this VM, whose speed moves by a third
  // from run to run: back to back, 2 workers 302 s then 3 workers 238 s; otherwise 2 workers 290 s,
  // 3 workers 188 s, 4 workers 234 s.
  maxWorkers: 3,
  // One copy of bson per worker (test/setup/environment.js says why): it was most of the buffers
  // a worker kept across files (about 18 MB of `arrayBuffers` a file; now flat at 30-60 MB).
  // Each file's module registry is still kept after the file ends, about 15 MB of heap a file:
  // V8 hands a later file's objects the hidden classes an earlier file made for Node's own
  // prototypes (a Transform subclass of iconv-lite, IncomingMessage, EventEmitter), and through
  // their constructors every earlier file's context stays reachable (a heap snapshot's retainer
  // path, 2026-11-28). Until that chain is cut, a worker whose heap passed this after a file is
  // replaced by a fresh one. At 300 MB of heap no worker passed 488 MB resident in a whole run
  // (three workers, ten processes in all, 256 s); at 384 MB the largest reached 616 MB (nine, 265 s,
  // the run right after). Measured with a probe of process.memoryUsage() after each file.
  workerIdleMemoryLimit: '300MB',
};
