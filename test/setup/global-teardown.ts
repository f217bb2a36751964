// Jest global teardown: checks that the run left nothing behind (every name a test made carries the
// run's id), then stops whatever the global setup started (and nothing it merely reached).
import fs from 'node:fs';
import { builtPagesDir } from '@acct/test-harness/build';
import { issuedNamesFile } from '@acct/test-harness/isolation';
import { mountedFilesDir } from '@acct/test-harness/mounted-files';
import { findLeftovers } from './leftovers';

export default async function globalTeardown(): Promise<void> {
  const run = process.env.TEST_RUN_ID;
  let leftovers: string[] = [];
  try {
    // The shared stack removes its own databases, keys and queues as it stops: before the check.
    await ((globalThis as Record<string, unknown>).__ACCT_SHARED_STACK__ as { stop(): Promise<void> } | undefined)?.stop();
    if (run) leftovers = await findLeftovers({ redis: process.env.REDIS_URL!, mongo: process.env.MONGO_URL!, amqp: process.env.AMQP_URL! }, run);
  } finally {
    if (run) fs.rmSync(issuedNamesFile(run), { force: true });
    if (run) fs.rmSync(mountedFilesDir(run), { recursive: true, force: true });
    if (run) fs.rmSync(builtPagesDir(run), { recursive: true, force: true });
    const started = ((globalThis as Record<string, unknown>).__ACCT_DEPS__ ?? []) as Array<{ stop?: () => Promise<void> }>;
    await Promise.all(started.map((d) => d.stop?.()));
  }
  if (leftovers.length) {
    throw new Error(`The tests left ${leftovers.length} thing(s) behind; each test file must remove what it makes:\n  ${leftovers.join('\n  ')}`);
  }
  process.stdout.write(`test run ${run}: nothing left behind (databases, Redis keys, exchanges and queues checked)\n`);
}
