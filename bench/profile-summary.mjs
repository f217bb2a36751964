#!/usr/bin/env node
// Summarises a V8 CPU profile (node --cpu-prof, or `BENCH_PROFILE=<dir> npm run bench`) or a
// sampling heap profile (`BENCH_ALLOC_PROFILE=<dir> npm run bench`): the top functions by self time
// (or bytes allocated), and self and inclusive shares per package or project file.
// Given a folder (`ACCT_CPU_PROFILE=<dir> npm test` writes one CPU profile per test file), it sums
// them all, leaving out the time a thread sat idle, and lists the files that took most, with the
// share jest spent loading each file's modules.
// Usage: node bench/profile-summary.mjs <file.cpuprofile|file.heapprofile|folder> [top N]
import fs from 'node:fs';
import path from 'node:path';

const [file, topArg] = process.argv.slice(2);
if (!file) {
  process.stderr.write('usage: node bench/profile-summary.mjs <file.cpuprofile|file.heapprofile> [top N]\n');
  process.exit(2);
}
const top = Number(topArg ?? 20);
const folder = fs.statSync(file).isDirectory();
const files = folder ? fs.readdirSync(file).filter((f) => f.endsWith('.cpuprofile')).sort().map((f) => path.join(file, f)) : [file];
const profiles = files.map((f) => JSON.parse(fs.readFileSync(f, 'utf8')));
const profile = profiles[0];
const perFile = files.map(() => 0);
const nodes = new Map();
const parent = new Map();
/** Per node: microseconds sampled (CPU) or bytes allocated (heap). */
const self = new Map();
let total = 0;
const heap = Boolean(profile.head);
if (heap) {
  // A heap profile is a tree of call frames, each with the bytes its samples stand for.
  const visit = (node, parentId) => {
    nodes.set(node.id, node);
    if (parentId !== undefined) parent.set(node.id, parentId);
    if (node.selfSize) {
      self.set(node.id, node.selfSize);
      total += node.selfSize;
    }
    for (const child of node.children ?? []) visit(child, node.id);
  };
  visit(profile.head);
} else {
  for (const [k, one] of profiles.entries()) {
    const key = (id) => `${k}:${id}`;
    for (const n of one.nodes) nodes.set(key(n.id), n);
    for (const n of one.nodes) for (const child of n.children ?? []) parent.set(key(child), key(n.id));
    one.samples.forEach((id, i) => {
      // A sample stands for the time until the next one (as DevTools reads it).
      const dt = one.timeDeltas[i + 1] ?? 0;
      // Summing a folder's files: a worker's idle time is not work.
      if (folder && nodes.get(key(id)).callFrame.functionName === '(idle)') return;
      self.set(key(id), (self.get(key(id)) ?? 0) + dt);
      perFile[k] += dt;
      total += dt;
    });
  }
}

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
/** Time under jest's loading of a module (resolving, reading the transformed file, compiling, running its top level). */
let loading = 0;
const bySelfOwner = new Map();
const byInclusiveOwner = new Map();
for (const [id, t] of self) {
  const node = nodes.get(id);
  const where = `${node.callFrame.functionName || '(anonymous)'} ${node.callFrame.url.split('/').slice(-2).join('/')}:${node.callFrame.lineNumber + 1}`;
  byFunction.set(where, (byFunction.get(where) ?? 0) + t);
  bySelfOwner.set(owner(node), (bySelfOwner.get(owner(node)) ?? 0) + t);
  const seen = new Set();
  let loads = false;
  for (let cur = id; cur !== undefined; cur = parent.get(cur)) {
    if (nodes.get(cur).callFrame?.functionName === '_execModule') loads = true;
    const o = owner(nodes.get(cur));
    if (!seen.has(o)) {
      seen.add(o);
      byInclusiveOwner.set(o, (byInclusiveOwner.get(o) ?? 0) + t);
    }
  }
  if (loads) loading += t;
}
const measure = heap ? 'bytes allocated' : 'time';
console.log(`profile: ${file}, ${heap ? `${(total / 1e6).toFixed(1)} MB allocated (estimated from samples)` : `${Math.round(total / 1000)} ms sampled`}`);
if (folder) {
  console.log(`${files.length} profiles, idle left out; jest loading modules: ${pct(loading)}`);
  const byFile = new Map(files.map((f, k) => [path.basename(f, '.cpuprofile'), perFile[k]]));
  print('profiles by time sampled', byFile, top);
}
print(`functions by self ${measure}`, byFunction, top);
print(`self ${measure} by package or file`, bySelfOwner, top);
print(`inclusive ${measure} by package or file`, byInclusiveOwner, top);
