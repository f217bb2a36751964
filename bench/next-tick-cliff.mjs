#!/usr/bin/env node
// process.nextTick's cost before and after a full collection that keeps no dead maps, run while no
// tick is pending (the memory reducer's collection of an idle process), with and without
// keepNextTickFast (libs/shared/src/next-tick.ts). Each case in a fresh child, BENCH_REPEAT times
// (default 3), alternating; `--retain-maps-for-n-gc=0` makes the child's gc() keep no dead maps, as
// the memory reducer's collections do. Needs the build (`npm run build`).
//
//   node bench/next-tick-cliff.mjs
//   PATH=/path/to/node24/bin:$PATH node bench/next-tick-cliff.mjs
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const REPEAT = Number(process.env.BENCH_REPEAT ?? 3);
const helper = path.join(root, 'libs', 'shared', 'dist', 'next-tick.js');

const child = (keep) => `
  ${keep ? `require(${JSON.stringify(helper)}).keepNextTickFast();` : ''}
  const burst = (n) => new Promise((resolve) => { let i = 0; const step = () => (++i < n ? process.nextTick(step) : resolve()); process.nextTick(step); });
  const nsPerTick = async () => {
    const started = process.hrtime.bigint();
    for (let r = 0; r < 20; r++) await burst(100000);
    return Number(process.hrtime.bigint() - started) / 2e6;
  };
  (async () => {
    await nsPerTick();
    const before = await nsPerTick();
    await new Promise((resolve) => setTimeout(resolve, 50));
    gc();
    gc();
    await nsPerTick();
    const after = await nsPerTick();
    process.stdout.write(JSON.stringify({ before, after }));
  })();
`;

const runs = { unprotected: [], keepNextTickFast: [] };
for (let i = 0; i < REPEAT; i++) {
  for (const [name, keep] of i % 2 === 0 ? [['unprotected', false], ['keepNextTickFast', true]] : [['keepNextTickFast', true], ['unprotected', false]]) {
    const out = spawnSync(process.execPath, ['--expose-gc', '--retain-maps-for-n-gc=0', '-e', child(keep)], { encoding: 'utf8' });
    if (out.status !== 0) throw new Error(out.stderr);
    runs[name].push(JSON.parse(out.stdout));
    process.stderr.write(`[next-tick-cliff] ${i + 1}/${REPEAT} ${name}: ${JSON.stringify(runs[name].at(-1))}\n`);
  }
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const summary = Object.fromEntries(
  Object.entries(runs).map(([name, list]) => [name, { nsPerNextTickBefore: Math.round(median(list.map((r) => r.before))), nsPerNextTickAfter: Math.round(median(list.map((r) => r.after))) }]),
);
process.stdout.write(`${JSON.stringify({ node: process.version, v8: process.versions.v8, repeat: REPEAT, medians: summary }, null, 2)}\n`);
