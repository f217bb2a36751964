// Stopping a process a test started. Signalling it is not enough: until it has exited and its output
// pipes have closed, the jest worker holds them open, and a worker whose last test file signalled
// a slow child outlives jest's half-second stop and is force-exited with a warning ("A worker
// process has failed to exit gracefully"). So: the signal, the wait for the child's 'close' (exit and
// every pipe shut), and SIGKILL after a grace period; should a grandchild still hold a pipe then,
// this process lets go of its own ends.
import type { ChildProcess } from 'node:child_process';

export async function stopChild(child: ChildProcess | undefined, signal: NodeJS.Signals = 'SIGTERM', graceMs = 5_000): Promise<void> {
  if (!child) return;
  const exited = () => child.exitCode !== null || child.signalCode !== null;
  const openPipes = () => child.stdio.filter((pipe): pipe is NonNullable<typeof pipe> => pipe !== null && pipe !== undefined && !pipe.destroyed);
  if (exited() && openPipes().length === 0) return;
  await new Promise<void>((resolve) => {
    let last: NodeJS.Timeout | undefined;
    const grace = setTimeout(() => {
      if (!exited()) child.kill('SIGKILL');
      // A grandchild can keep a pipe open after the child is gone: ours are shut, and the wait ends.
      last = setTimeout(() => {
        openPipes().forEach((pipe) => pipe.destroy());
        resolve();
      }, 1_000);
    }, graceMs);
    child.once('close', () => {
      clearTimeout(grace);
      clearTimeout(last);
      resolve();
    });
    if (!exited()) child.kill(signal);
  });
}
