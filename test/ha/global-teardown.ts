// Checks the run left nothing behind (on the clusters), then stops every node the setup started, and
// kills any RabbitMQ node a test file started and could not stop (a start that ran out of time).
import { killRabbitNodesOfRun } from '@acct/test-harness/rabbitmq-servers';
import globalTeardown from '../setup/global-teardown';
import type { HaEngines } from './global-setup';

export default async function haGlobalTeardown(): Promise<void> {
  try {
    await globalTeardown();
  } finally {
    const engines = (globalThis as Record<string, unknown>).__ACCT_HA__ as HaEngines | undefined;
    await Promise.all([engines?.redis.stop(), engines?.rabbit.stop()]);
    const run = process.env.TEST_RUN_ID;
    const strays = run ? killRabbitNodesOfRun(run) : 0;
    if (strays) process.stderr.write(`test run ${run}: killed ${strays} RabbitMQ VM(s) a test file started and did not stop\n`);
  }
}
