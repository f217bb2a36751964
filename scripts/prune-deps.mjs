#!/usr/bin/env node
// Leaves in node_modules only what one workspace needs at run time: `npm ci --workspace X` installs
// the whole lockfile tree (every service's drivers), so the image of one service would carry the
// others'. Walks package-lock.json from the workspace's manifest as Node resolves packages (nested
// node_modules first, then up), through workspace links (@acct/shared), following dependencies,
// optional dependencies and the peers not marked optional; deletes every installed package outside
// that set. Run from the folder holding package-lock.json, after `npm ci --omit=dev`.
//
//   node scripts/prune-deps.mjs services/gateway [--dry-run]
import fs from 'node:fs';
import path from 'node:path';

const [workspace, flag] = process.argv.slice(2);
if (!workspace) {
  process.stderr.write('usage: node scripts/prune-deps.mjs <workspace folder, e.g. services/gateway> [--dry-run]\n');
  process.exit(2);
}
const packages = JSON.parse(fs.readFileSync('package-lock.json', 'utf8')).packages;
if (!packages[workspace]) {
  process.stderr.write(`package-lock.json has no workspace ${workspace}\n`);
  process.exit(2);
}

/** The lockfile key Node would load `name` from, required by the package at `from`. */
function resolve(from, name) {
  for (let dir = from; ; ) {
    const key = dir ? `${dir}/node_modules/${name}` : `node_modules/${name}`;
    if (packages[key]) return key;
    if (!dir) return undefined;
    const cut = dir.lastIndexOf('/node_modules/');
    dir = cut >= 0 ? dir.slice(0, cut) : '';
  }
}

const needed = new Set();
const queue = [workspace];
while (queue.length) {
  const key = queue.pop();
  if (needed.has(key)) continue;
  needed.add(key);
  const entry = packages[key];
  if (entry.link) {
    queue.push(entry.resolved);
    continue;
  }
  const optionalPeers = entry.peerDependenciesMeta ?? {};
  const names = [
    ...Object.keys(entry.dependencies ?? {}),
    ...Object.keys(entry.optionalDependencies ?? {}),
    ...Object.keys(entry.peerDependencies ?? {}).filter((n) => !optionalPeers[n]?.optional),
  ];
  for (const name of names) {
    const found = resolve(key, name);
    if (found) queue.push(found);
    else if (!(entry.optionalDependencies ?? {})[name]) process.stderr.write(`warning: ${key} needs ${name}, which the lockfile does not hold\n`);
  }
}

let removed = 0;
let bytes = 0;
const sizeOf = (dir) => {
  let total = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    total += entry.isDirectory() ? sizeOf(full) : entry.isFile() ? fs.statSync(full).size : 0;
  }
  return total;
};
// Outermost first: removing a package removes what is nested in it.
const gone = [];
for (const key of Object.keys(packages).sort((a, b) => a.length - b.length)) {
  if (!key.includes('node_modules/') || needed.has(key) || !fs.existsSync(key)) continue;
  // A package nested inside a needed one is judged on its own; inside a removed one, it is gone already.
  if (gone.some((dir) => key.startsWith(`${dir}/`))) continue;
  gone.push(key);
  bytes += sizeOf(key);
  removed++;
  if (flag !== '--dry-run') fs.rmSync(key, { recursive: true, force: true });
}
// Scope folders (`@types`…) left empty.
if (flag !== '--dry-run') {
  for (const scope of fs.readdirSync('node_modules').filter((n) => n.startsWith('@'))) {
    const dir = path.join('node_modules', scope);
    if (fs.readdirSync(dir).length === 0) fs.rmdirSync(dir);
  }
}
const kept = [...needed].filter((k) => k.includes('node_modules/') && fs.existsSync(k)).length;
process.stdout.write(`${workspace}: kept ${kept} packages, ${flag === '--dry-run' ? 'would remove' : 'removed'} ${removed} (${(bytes / 1024 / 1024).toFixed(1)} MB)\n`);
