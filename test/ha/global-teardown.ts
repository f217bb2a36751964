// Checks the run left nothing behind (on the clusters), then stops every node the setup started.
import globalTeardown from '../setup/global-teardown';
import type { HaEngines } from './global-setup';

export default async function haGlobalTeardown(): Promise<void> {
  try {
    await globalTeardown();
  } finally {
    const engines = (globalThis as Record<string, unknown>).__ACCT_HA__ as HaEngines | undefined;
    await Promise.all([engines?.redis.stop(), engines?.rabbit.stop()]);
  }
}
