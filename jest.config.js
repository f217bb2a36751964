// One jest run over every workspace; infrastructure is resolved once in the global setup.
const { scale } = require('./test/setup/time-scale');
/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/libs', '<rootDir>/services', '<rootDir>/test'],
  testMatch: ['**/test/**/*.test.ts'],
  // The multi-node runs are `npm run test:ha` (jest.ha.config.js): they start clusters of their own.
  testPathIgnorePatterns: ['/node_modules/', '<rootDir>/test/ha/'],
  transform: {
    '^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/tsconfig.json', diagnostics: false }],
    // openid-client and what it builds on ship only ES modules, which Node loads with require()
    // but jest's module system does not: they are compiled to CommonJS for the tests alone.
    '^.+\\.js$': ['ts-jest', { tsconfig: { allowJs: true, module: 'commonjs', target: 'ES2022', esModuleInterop: true }, diagnostics: false }],
  },
  transformIgnorePatterns: ['/node_modules/(?!(openid-client|oauth4webapi|jose)/)'],
  moduleNameMapper: {
    '^@acct/(shared|mongo-standin|verifier)$': '<rootDir>/libs/$1/src',
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
  maxWorkers: 2,
  // A worker whose heap passed this after a test file is replaced by a fresh one. Without it each
  // worker ended the run near 1 GB (heap and buffers), and a process that size takes longer than
  // jest's half second to tear down after its 'exit' event, so jest killed it with "A worker process
  // has failed to exit gracefully" (every whole run on 2026-11-27). At 384 MB: 4 workers replaced,
  // the last two gone 285-302 ms after 'exit' (512 MB: 425-450 ms; 256 MB: 10 replaced, ~30 s more).
  workerIdleMemoryLimit: '384MB',
};
