// For tests that run the built services as processes, as production does: compiles every workspace
// (incremental: quick when nothing changed) and fails with the compiler's words.
import { spawnSync } from 'node:child_process';
import path from 'node:path';

export const repositoryRoot = path.resolve(__dirname, '..', '..', '..');

export function buildWorkspaces(): void {
  const build = spawnSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-b', 'tsconfig.build.json'], { cwd: repositoryRoot, encoding: 'utf8' });
  if (build.status !== 0) throw new Error(`build failed: ${build.stdout}${build.stderr}`);
}

/** Builds the hosted pages (apps/web) into `outDir` with Vite, as `npm run build` does into apps/web/dist. */
export function buildPages(outDir: string): void {
  const vite = path.join(path.dirname(require.resolve('vite/package.json')), 'bin', 'vite.js');
  const build = spawnSync(process.execPath, [vite, 'build', '--outDir', outDir, '--emptyOutDir', '--logLevel', 'warn'], { cwd: path.join(repositoryRoot, 'apps', 'web'), encoding: 'utf8' });
  if (build.status !== 0) throw new Error(`the pages did not build: ${build.stdout}${build.stderr}`);
}
