// Every workspace declares what its source imports, and nothing it does not: a package imported
// only through another workspace's dependencies works until that one drops it.
import fs from 'node:fs';
import path from 'node:path';
import { builtinModules } from 'node:module';

const root = path.resolve(__dirname, '..', '..');
const workspaces: string[] = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')).workspaces;

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return /\.(ts|mjs|c?js)$/.test(entry.name) ? [full] : [];
  });
}

/** The driver each entry of the shared library loads: a workspace importing the entry must supply it (an optional peer of the library). */
const INSTRUMENTATIONS = ['', '-amqplib', '-http', '-ioredis', '-mongodb', '-undici'].map((suffix) => `@opentelemetry/instrumentation${suffix}`);
const SHARED_ENTRY_PEERS: Record<string, string[]> = {
  '@acct/shared/redis': ['ioredis'],
  '@acct/shared/mongo': ['mongoose'],
  '@acct/shared/amqp': ['amqplib'],
  '@acct/shared/http': ['express'],
  '@acct/shared/instrumentations': INSTRUMENTATIONS,
};

/** The packages a file imports, requires or resolves (a file it serves) at run time or for types, by package name. */
function importedPackages(file: string): string[] {
  const text = fs.readFileSync(file, 'utf8');
  const specifiers = [...text.matchAll(/(?:from\s+|import\s*\(\s*|require(?:\.resolve)?\(\s*)'([^'.][^']*)'/g)].map((m) => m[1]);
  return specifiers
    .filter((s) => !s.startsWith('node:') && !builtinModules.includes(s.split('/')[0]))
    .flatMap((s) => [s.startsWith('@') ? s.split('/').slice(0, 2).join('/') : s.split('/')[0], ...(SHARED_ENTRY_PEERS[s] ?? [])]);
}

describe.each(workspaces)('%s', (workspace) => {
  const manifest = JSON.parse(fs.readFileSync(path.join(root, workspace, 'package.json'), 'utf8'));
  const declared = new Set([...Object.keys(manifest.dependencies ?? {}), ...Object.keys(manifest.peerDependencies ?? {})]);
  const imported = new Set(sourceFiles(path.join(root, workspace, 'src')).flatMap(importedPackages));
  imported.delete(manifest.name);

  it('declares every package its source imports', () => {
    expect([...imported].filter((name) => !declared.has(name)).sort()).toEqual([]);
  });

  it('declares no package its source does not import', () => {
    expect([...declared].filter((name) => !imported.has(name)).sort()).toEqual([]);
  });

  it('has no start script without a start file', () => {
    const start = manifest.scripts?.start as string | undefined;
    if (start) expect(fs.existsSync(path.join(root, workspace, start.replace(/^node\s+/, '').replace(/^dist\//, 'src/').replace(/\.js$/, '.ts')))).toBe(true);
    else expect(start).toBeUndefined();
  });
});
