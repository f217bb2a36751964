#!/usr/bin/env node
// Reads the call stacks of a Linux perf recording (`perf script` output) and answers where a process's
// CPU goes, kernel included: what V8's own profiler (BENCH_PROFILE) cannot split, since it charges a
// socket write and everything the kernel does for it to one native function. Samples are counted per
// frame, inclusive (a frame counts once per stack). JS frames have names when the process ran with
// --perf-basic-prof.
//   node bench/perf-stacks.mjs <a.txt> [top=40]              the frames by inclusive share
//   node bench/perf-stacks.mjs <a.txt> --under <frame> [top]  what the frames whose name contains <frame> call
//   node bench/perf-stacks.mjs <a.txt> --against <b.txt> [top] the frames a spends most more samples in than b,
//                                                             by their own samples (the innermost frame), then inclusive
// Recording, for a process under a steady load of N requests (the same N on both sides of --against):
//   perf record -e cpu-clock -c 50000 -g -p <pid> -o <file>   (stopped with SIGINT once the load ends)
//   perf script -i <file> > a.txt
import { createReadStream } from 'node:fs';
import readline from 'node:readline';

const args = process.argv.slice(2);
const option = (name) => {
  const i = args.indexOf(name);
  return i < 0 ? undefined : args.splice(i, 2)[1];
};
const under = option('--under');
const against = option('--against');
const [file, topArg] = args;
if (!file) {
  process.stderr.write('usage: node bench/perf-stacks.mjs <perf-script.txt> [--under <frame> | --against <other.txt>] [top=40]\n');
  process.exit(2);
}
const top = Number(topArg ?? 40);

/** Each sample's frames, innermost first, named without offsets and with project paths shortened. */
async function* stacks(path) {
  let frames = [];
  for await (const line of readline.createInterface({ input: createReadStream(path) })) {
    const frame = /^\s+[0-9a-f]+ (.*) \(.*\)$/.exec(line);
    if (frame) {
      frames.push(frame[1].replace(/\+0x[0-9a-f]+$/, '').replace(/\S*\/(node_modules\/[^/]+|services\/[^/]+|libs\/[^/]+|bench)\/\S*?([\w.-]+\.[cm]?js)/, '$1/$2'));
      continue;
    }
    if (frames.length) yield frames;
    frames = [];
  }
  if (frames.length) yield frames;
}

/** Samples per frame, inclusive and its own (innermost), and the number of samples. */
async function inclusive(path) {
  const counts = new Map();
  const own = new Map();
  let total = 0;
  for await (const frames of stacks(path)) {
    total++;
    own.set(frames[0], (own.get(frames[0]) ?? 0) + 1);
    for (const name of new Set(frames)) counts.set(name, (counts.get(name) ?? 0) + 1);
  }
  return { counts, own, total };
}

const pct = (n, total) => `${((100 * n) / total).toFixed(2).padStart(6)}%`;
const row = (...cells) => process.stdout.write(`${cells.join('  ')}\n`);

if (under) {
  const callees = new Map();
  let hits = 0;
  for await (const frames of stacks(file)) {
    const i = frames.findIndex((name) => name.includes(under));
    if (i < 0) continue;
    hits++;
    const callee = i > 0 ? frames[i - 1] : '(itself)';
    callees.set(callee, (callees.get(callee) ?? 0) + 1);
  }
  row(`${hits} samples under frames named like "${under}"`);
  for (const [name, n] of [...callees].sort((a, b) => b[1] - a[1]).slice(0, top)) row(String(n).padStart(8), pct(n, hits), name);
} else if (against) {
  const [a, b] = await Promise.all([inclusive(file), inclusive(against)]);
  row(`samples: ${a.total} against ${b.total} (${a.total - b.total} more)`);
  for (const kind of ['own', 'counts']) {
    row(kind === 'own' ? '--- by frame, its own samples: difference, a, b' : '--- by frame, inclusive: difference, a, b');
    const names = new Set([...a[kind].keys(), ...b[kind].keys()]);
    const rows = [...names].map((name) => [name, (a[kind].get(name) ?? 0) - (b[kind].get(name) ?? 0)]);
    for (const [name, diff] of rows.sort((x, y) => y[1] - x[1]).slice(0, top)) {
      row(String(diff).padStart(8), String(a[kind].get(name) ?? 0).padStart(8), String(b[kind].get(name) ?? 0).padStart(8), name);
    }
  }
} else {
  const { counts, total } = await inclusive(file);
  row(`${total} samples; by frame, inclusive`);
  for (const [name, n] of [...counts].sort((x, y) => y[1] - x[1]).slice(0, top)) row(String(n).padStart(8), pct(n, total), name);
}
