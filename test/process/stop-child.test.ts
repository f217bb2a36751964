// stopChild (libs/test-harness/src/processes.ts): a test's afterAll waits with it until the process it
// started is gone and its pipes are shut, so no jest worker is left holding them.
import { spawn } from 'node:child_process';
import { stopChild } from '@acct/test-harness/processes';
import { scaled } from '@acct/test-harness/time-scale';
import { until } from '@acct/test-harness/until';

const node = (code: string) => spawn(process.execPath, ['-e', code], { stdio: ['ignore', 'pipe', 'ignore'] });
/** Resolves with the child's first line of output: it is running its code by then. */
const firstLine = (child: ReturnType<typeof node>) => new Promise<string>((resolve) => child.stdout!.once('data', (chunk: Buffer) => resolve(chunk.toString().trim())));

it('waits for a child that takes its time to stop, until it has exited and its pipes are shut', async () => {
  const child = node("process.on('SIGTERM', () => setTimeout(() => process.exit(3), 300)); console.log('up'); setInterval(() => {}, 1e6)");
  await firstLine(child);
  await stopChild(child);
  expect(child.exitCode).toBe(3);
  expect(child.stdout!.destroyed).toBe(true);
});

it('kills a child that ignores the signal once the grace period is over', async () => {
  const child = node("process.on('SIGTERM', () => {}); console.log('up'); setInterval(() => {}, 1e6)");
  await firstLine(child);
  const started = Date.now();
  await stopChild(child, 'SIGTERM', 300);
  expect(child.signalCode).toBe('SIGKILL');
  expect(Date.now() - started).toBeGreaterThanOrEqual(300);
});

it('lets go of a pipe that a grandchild still holds after the child is gone', async () => {
  // The grandchild shares the child's stdout and outlives it.
  const child = node(
    "const g = require('child_process').spawn(process.execPath, ['-e', 'setInterval(() => {}, 1e6)'], { stdio: ['ignore', 'inherit', 'ignore'] }); console.log(g.pid); process.on('SIGTERM', () => process.exit(0))",
  );
  const grandchild = Number(await firstLine(child));
  try {
    // Within the grace period on a quiet machine; on a busy one the SIGKILL after it does as well.
    await stopChild(child, 'SIGTERM', scaled(500));
    expect(child.exitCode !== null || child.signalCode !== null).toBe(true);
    expect(child.stdout!.destroyed).toBe(true);
  } finally {
    process.kill(grandchild, 'SIGKILL');
  }
  await until(() => !alive(grandchild), 5_000, 'the grandchild gone');
});

it('returns at once for a child already stopped, and for none', async () => {
  const child = node("console.log('up')");
  await new Promise((resolve) => child.once('close', resolve));
  await stopChild(child);
  await stopChild(undefined);
  expect(child.exitCode).toBe(0);
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
