// Child processes of the benches: a helper started with its first stdout line awaited (the port it
// listens on), and the CPU a process has used so far, read from /proc.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** Starts `command args` in the checkout; `firstLine` answers its first line on stdout (or all of it, if it exits first). */
export function spawnLines(command, args, env = {}) {
  const child = spawn(command, args, { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  const firstLine = new Promise((resolve, reject) => {
    let data = '';
    child.stdout.on('data', (d) => {
      data += d;
      if (data.includes('\n')) resolve(data.split('\n')[0]);
    });
    child.once('exit', (code) => (code ? reject(new Error(`${args.join(' ')} exited ${code}`)) : resolve(data.trim())));
  });
  return { child, firstLine };
}

/**
 * The bare node:http baseline (bench/bare-404.mjs, writing the gateway's request record to a file),
 * started and listening: its process, its URL and how to stop it. `env` adds to its environment
 * (BARE_VERSION_FROM: the version check it also answers).
 */
export async function startBare(env = {}) {
  const bare = spawnLines(process.execPath, [path.join(root, 'bench', 'bare-404.mjs')], { BARE_LOG: path.join(root, 'bench', '.tmp', 'bare-404.log'), ...env });
  const port = Number(await bare.firstLine);
  const stop = () => bare.child.kill('SIGTERM');
  if (!port) {
    stop();
    throw new Error('bench/bare-404.mjs printed no port');
  }
  return { child: bare.child, url: `http://127.0.0.1:${port}`, stop };
}

/**
 * CPU seconds (user + system) a process has used so far, from /proc; null where there is none. With
 * `mainThread`, its main thread's alone; with `kernel`, the system time alone.
 */
export function cpuSeconds(pid, { mainThread = false, kernel = false } = {}) {
  try {
    const fields = fs.readFileSync(mainThread ? `/proc/${pid}/task/${pid}/stat` : `/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return ((kernel ? 0 : Number(fields[11])) + Number(fields[12])) / 100; // utime, stime in clock ticks (USER_HZ 100)
  } catch {
    return null;
  }
}

/**
 * CPU seconds a process has used so far, from the scheduler's own clock (the sum over its threads of
 * /proc/<pid>/task/<tid>/schedstat's run time, in ns): exact where /proc/<pid>/stat is sampled at
 * each tick (CONFIG_TICK_CPU_ACCOUNTING, 4 ms at HZ=250 here), which misreads a process that wakes
 * briefly and often, as one under a low, steady rate does. null where there is none.
 */
export function cpuSecondsExact(pid) {
  try {
    let ns = 0;
    for (const task of fs.readdirSync(`/proc/${pid}/task`)) {
      try {
        ns += Number(fs.readFileSync(`/proc/${pid}/task/${task}/schedstat`, 'utf8').split(' ')[0]);
      } catch {
        // the thread ended between the listing and the read
      }
    }
    return ns / 1e9;
  } catch {
    return null;
  }
}

/** A reader of the exact CPU seconds (cpuSecondsExact) of each named process, for a measure's `cpu`. */
export const exactCpuOf = (pids) => () => Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, cpuSecondsExact(pid)]));

/** How many times a process's main thread has been put on a CPU so far (schedstat's timeslices): its wake-ups. */
export const mainThreadWakes = (pid) => Number(fs.readFileSync(`/proc/${pid}/task/${pid}/schedstat`, 'utf8').split(' ')[2]);
