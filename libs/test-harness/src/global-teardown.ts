// Jest global teardown: stops whatever the global setup started (and nothing it merely reached).
export default async function globalTeardown(): Promise<void> {
  const started = ((globalThis as Record<string, unknown>).__ACCT_DEPS__ ?? []) as Array<{ stop?: () => Promise<void> }>;
  await Promise.all(started.map((d) => d.stop?.()));
}
