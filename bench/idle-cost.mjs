#!/usr/bin/env node
// What each stack process costs while it serves nothing: its CPU (the scheduler's exact clock, every
// thread) and its main thread's wake-ups, per second, over IDLE_SECONDS (20) after a 10 s settle.
// A process answering 100 requests a second pays this idle cost as (CPU a second) / 100 on every
// request. `node bench/idle-cost.mjs`; IDLE_COST_CHECKOUT=<a built checkout> measures that one's stack.
import path from 'node:path';
import { cpuSecondsExact, mainThreadWakes } from './lib/processes.mjs';
import { say } from './lib/context.mjs';
import { startStack } from './lib/stack.mjs';

const seconds = Number(process.env.IDLE_SECONDS ?? 20);
const stack = await startStack(process.env.IDLE_COST_CHECKOUT ? path.resolve(process.env.IDLE_COST_CHECKOUT) : undefined, 'idle-cost');
try {
  const pids = Object.fromEntries(Object.entries(stack.services).map(([name, s]) => [name, s.pid]));
  say('settling for 10 s…');
  await new Promise((resolve) => setTimeout(resolve, 10_000));
  const start = Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, { cpu: cpuSecondsExact(pid), wakes: mainThreadWakes(pid) }]));
  say(`measuring for ${seconds} s…`);
  await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
  for (const [name, pid] of Object.entries(pids)) {
    const cpuMsPerSecond = Math.round(((cpuSecondsExact(pid) - start[name].cpu) * 1000 * 100) / seconds) / 100;
    const wakesPerSecond = Math.round(((mainThreadWakes(pid) - start[name].wakes) * 10) / seconds) / 10;
    say(JSON.stringify({ service: name, cpuMsPerSecond, wakesPerSecond }));
  }
} finally {
  await stack.stop();
}
