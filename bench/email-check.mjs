// The email check's cost: the one rule of libs/shared (length cap, linear pattern, normalisation)
// against the spec's regex it replaced, on valid and hostile input of 254 and 100,000 characters.
// Usage: npm run build && node bench/email-check.mjs [--with-old-regex-at-100k]
// Writes bench/results/email-check-<date>-<host>.json and prints a table.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { matchesEmailPattern, parseEmail } = createRequire(import.meta.url)(path.join(root, 'libs/shared/dist/email-address.js'));
const SPEC_REGEX = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

const hostile = (length) => `a@${'.'.repeat(length - 3)}@`;
const valid254 = `${'a'.repeat(242)}@example.com`;

/** Median time of one call over enough repetitions to last ~200 ms (at least 3). */
function time(fn, input) {
  const samples = [];
  const until = performance.now() + 200;
  while (samples.length < 3 || (performance.now() < until && samples.length < 100_000)) {
    const started = performance.now();
    fn(input);
    samples.push(performance.now() - started);
  }
  samples.sort((a, b) => a - b);
  return { medianMs: samples[Math.floor(samples.length / 2)], runs: samples.length };
}

const rows = [
  ['new rule', 'valid, 254 chars', parseEmail, valid254],
  ['new rule', 'hostile, 254 chars', parseEmail, hostile(254)],
  ['new rule', 'hostile, 100,000 chars', parseEmail, hostile(100_000)],
  ['linear pattern alone (no length cap)', 'hostile, 100,000 chars', matchesEmailPattern, hostile(100_000)],
  ['linear pattern alone (no length cap)', 'valid-looking, 100,000 chars', matchesEmailPattern, `${'a'.repeat(99_988)}@example.com`],
  ['spec regex (old)', 'valid, 254 chars', (v) => SPEC_REGEX.test(v), valid254],
  ['spec regex (old)', 'hostile, 254 chars', (v) => SPEC_REGEX.test(v), hostile(254)],
  ['spec regex (old)', 'hostile, 10,000 chars', (v) => SPEC_REGEX.test(v), hostile(10_000)],
];
if (process.argv.includes('--with-old-regex-at-100k')) rows.push(['spec regex (old)', 'hostile, 100,000 chars', (v) => SPEC_REGEX.test(v), hostile(100_000)]);

const results = rows.map(([check, input, fn, value]) => {
  process.stderr.write(`${check}: ${input}…\n`);
  const { medianMs, runs } = time(fn, value);
  return { check, input, medianMs: Number(medianMs.toPrecision(3)), runs };
});

console.table(results);
const date = new Date().toISOString().slice(0, 10);
const out = path.join(root, 'bench/results', `email-check-${date}-${os.hostname()}.json`);
fs.writeFileSync(out, `${JSON.stringify({ date: new Date().toISOString(), node: process.version, cpu: os.cpus()[0]?.model, results }, null, 2)}\n`);
console.log(`written: ${path.relative(root, out)}`);
