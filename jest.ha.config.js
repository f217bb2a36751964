// `npm run test:ha`: the end-to-end suite on a 6-node Redis Cluster and a 3-node RabbitMQ cluster,
// started from the machine's redis-server and rabbitmq-server (test/ha/global-setup.ts), then the
// failover runs under load (test/ha/*.test.ts), which start engines of their own to kill.
const base = require('./jest.config.js');

// A worker that ran a failover holds more than the main run's heap budget allows (326 MB live after
// one, 2026-11-28, where the main run's workers stay under 260): these workers take V8's own heap
// size and are replaced once idle past 300 MB, as all workers were before the budget.
require('./test/setup/heap-budget').liftWorkerBudget();

/** @type {import('jest').Config} */
module.exports = {
  ...base,
  testMatch: ['<rootDir>/test/e2e/**/*.test.ts', '<rootDir>/test/ha/**/*.test.ts'],
  // The Sentinel restart runs alone after this run (npm run test:ha): its elections time out when
  // it shares the cores with the browser suite, as three CI runs showed.
  testPathIgnorePatterns: ['/node_modules/', '<rootDir>/test/ha/sentinel-restart.test.ts'],
  globalSetup: '<rootDir>/test/ha/global-setup.ts',
  globalTeardown: '<rootDir>/test/ha/global-teardown.ts',
  testTimeout: Math.round(60_000 * require('./test/setup/time-scale').scale),
  // Two workers beside the nine cluster nodes, as before the main run went to three, in jest's own
  // order: the main run's spread order (test/setup/sequencer.js) was measured with four workers.
  maxWorkers: 2,
  testSequencer: '@jest/test-sequencer',
  workerIdleMemoryLimit: '300MB',
};
