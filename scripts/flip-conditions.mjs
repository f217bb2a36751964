#!/usr/bin/env node
// Flips conditions in the domain's code one at a time and runs the domain tests against each: a flip
// no test notices is a rule that only the end-to-end suite, or nothing, guards (issue 66: "a
// deliberately broken rule must still fail a test").
//
//   node scripts/flip-conditions.mjs [--seed N] [--count N] [--tests "<jest paths>"] [files...]
//
// A flip: `===` and `!==` swapped, `<` and `<=`, `>` and `>=`, or an `if (!` made `if (`. The flips
// are drawn at random (seeded: the same seed draws the same flips while the code is unchanged) from
// the files given, by default every module of services/auth/src/domain but the ports. Each flip runs
// `npx jest --bail` over the tests given (by default the domain's on in-memory ports, 3 s a run)
// and the file is restored after it, on Ctrl-C too. Prints each flip as it is judged, then the
// survivors. Changes the working tree while it runs: run it on a clean one, and nothing else beside.
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const at = args.indexOf(name);
  if (at < 0) return fallback;
  const [, value] = args.splice(at, 2);
  return value;
};
const seed = Number(option('--seed', '1'));
const count = Number(option('--count', '40'));
const tests = option('--tests', 'services/auth/test/domain services/auth/test/ways-in.test.ts').split(/\s+/);
const root = 'services/auth/src/domain';
const files = args.length
  ? args
  : readdirSync(root, { recursive: true })
      .map((f) => join(root, f))
      .filter((f) => f.endsWith('.ts') && !f.endsWith('ports.ts'))
      .sort();
if (!Number.isInteger(seed) || !Number.isInteger(count) || count < 1) {
  console.error('usage: node scripts/flip-conditions.mjs [--seed N] [--count N] [--tests "<jest paths>"] [files...]');
  process.exit(2);
}
if (execFileSync('git', ['status', '--porcelain', '--', ...files], { encoding: 'utf8' }).trim()) {
  console.error('flip-conditions: the files to flip have uncommitted changes; commit or stash them first');
  process.exit(2);
}

const FLIPS = [
  [' === ', ' !== '],
  [' !== ', ' === '],
  [' < ', ' <= '],
  [' <= ', ' < '],
  [' > ', ' >= '],
  [' >= ', ' > '],
  ['if (!', 'if ('],
];
const candidates = [];
for (const file of files) {
  readFileSync(file, 'utf8')
    .split('\n')
    .forEach((line, index) => {
      const text = line.trim();
      if (text.startsWith('//') || text.startsWith('/*') || text.startsWith('*') || text.startsWith('import')) return;
      for (const [from, to] of FLIPS) for (let at = line.indexOf(from); at >= 0; at = line.indexOf(from, at + 1)) candidates.push({ file, index, at, from, to });
    });
}

// mulberry32: a seeded draw, so that a run can be repeated.
let state = seed >>> 0;
const random = () => {
  state = (state + 0x6d2b79f5) >>> 0;
  let t = state;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};
for (let i = candidates.length - 1; i > 0; i--) {
  const j = Math.floor(random() * (i + 1));
  [candidates[i], candidates[j]] = [candidates[j], candidates[i]];
}
const drawn = candidates.slice(0, count);
console.log(`flip-conditions: ${drawn.length} of ${candidates.length} flips in ${files.length} files, seed ${seed}; each runs npx jest --bail ${tests.join(' ')}`);

let restore;
process.on('SIGINT', () => {
  restore?.();
  process.exit(130);
});
const survivors = [];
for (const [n, { file, index, at, from, to }] of drawn.entries()) {
  const source = readFileSync(file, 'utf8');
  const lines = source.split('\n');
  const before = lines[index];
  lines[index] = before.slice(0, at) + to + before.slice(at + from.length);
  restore = () => writeFileSync(file, source);
  writeFileSync(file, lines.join('\n'));
  let caught;
  try {
    caught = spawnSync('npx', ['jest', '--bail', ...tests], { encoding: 'utf8', stdio: 'pipe' }).status !== 0;
  } finally {
    restore();
    restore = undefined;
  }
  const where = `${file}:${index + 1}: ${before.trim().slice(0, 140)} [${from.trim()} → ${to.trim()}]`;
  console.log(`${String(n + 1).padStart(3)}/${drawn.length} ${caught ? 'caught  ' : 'SURVIVED'} ${where}`);
  if (!caught) survivors.push(where);
}
console.log(`\n${survivors.length} of ${drawn.length} flips survived${survivors.length ? ':' : ''}`);
for (const where of survivors) console.log(`  ${where}`);
