// For tests that run the built services as processes, as production does: compiles every workspace
// (incremental: quick when nothing changed) and fails with the compiler's words.
import { spawnSync } from 'node:child_process';
import path from 'node:path';

export const repositoryRoot = path.resolve(__dirname, '..', '..', '..');

export function buildWorkspaces(): void {
  const build = spawnSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-b', 'tsconfig.build.json'], { cwd: repositoryRoot, encoding: 'utf8' });
  if (build.status !== 0) throw new Error(`build failed: ${build.stdout}${build.stderr}`);
}
