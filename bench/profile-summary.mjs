#!/usr/bin/env node
// Summarises a V8 CPU profile (node --cpu-prof, or `BENCH_PROFILE=<dir> npm run bench`): the top
// functions by self time, and self and inclusive time per package or project file.
// Usage: node bench/profile-summary.mjs <file.cpuprofile> [top N]
import fs from 'node:fs';

const [file, topArg] = process.argv.slice(2);
if (!file) {
  process.stderr.write('usage: node bench/profile-summary.mjs <file.cpuprofile> [top N]\n');
  process.exit(2);
}
const top = Number(topArg ?? 20);
const profile = JSON.parse(fs.readFileSync(file, 'utf8'));
const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map();
for (const n of profile.nodes) for (const child of n.children ?? []) parent.set(child, n.id);

const self = new Map();
let total = 0;
profile.samples.forEach((id, i) => {
  const dt = profile.timeDeltas[i] ?? 0;
  self.set(id, (self.get(id) ?? 0) + dt);
  total += dt;
});

const owner = (node) => {
  const url = node.callFrame.url;
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1];
  if (url.includes('/dist/')) return `project:${url.split('/dist/')[1]}`;
  if (url.startsWith('node:')) return url;
  return node.callFrame.functionName || '(native)';
};
const pct = (t) => `${((t / total) * 100).toFixed(1).padStart(5)}%`;
const print = (title, map, n) => {
  console.log(`--- ${title}`);
  [...map.entries()].sort((a, b) => b[1] - a[1]).slice(0, n).forEach(([k, t]) => console.log(`${pct(t)}  ${k}`));
};

const byFunction = new Map();
const bySelfOwner = new Map();
const byInclusiveOwner = new Map();
for (const [id, t] of self) {
  const node = nodes.get(id);
  const where = `${node.callFrame.functionName || '(anonymous)'} ${node.callFrame.url.split('/').slice(-2).join('/')}:${node.callFrame.lineNumber + 1}`;
  byFunction.set(where, (byFunction.get(where) ?? 0) + t);
  bySelfOwner.set(owner(node), (bySelfOwner.get(owner(node)) ?? 0) + t);
  const seen = new Set();
  for (let cur = id; cur !== undefined; cur = parent.get(cur)) {
    const o = owner(nodes.get(cur));
    if (!seen.has(o)) {
      seen.add(o);
      byInclusiveOwner.set(o, (byInclusiveOwner.get(o) ?? 0) + t);
    }
  }
}
console.log(`profile: ${file}, ${Math.round(total / 1000)} ms sampled`);
print('functions by self time', byFunction, top);
print('self time by package or file', bySelfOwner, top);
print('inclusive time by package or file', byInclusiveOwner, top);
