// For tests that run the built services as processes, as production does: compiles every workspace
// (incremental: quick when nothing changed) and fails with the compiler's words; and the hosted
// pages, built by Vite once per test run.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export const repositoryRoot = path.resolve(__dirname, '..', '..', '..');

/**
 * Brings every workspace's build up to date. Once in a run: the global setup builds before any worker
 * starts and says so (TEST_WORKSPACES_BUILT), and nothing changes the sources during a run; each call
 * started the compiler again, eleven of them in a run (about a second each, to find nothing to
 * do).
 */
export function buildWorkspaces(): void {
  if (process.env.TEST_WORKSPACES_BUILT === '1') return;
  const build = spawnSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-b', 'tsconfig.build.json'], { cwd: repositoryRoot, encoding: 'utf8' });
  if (build.status !== 0) throw new Error(`build failed: ${build.stdout}${build.stderr}`);
}

/** Where a test run keeps its one build of the pages; removed by the global teardown. */
export const builtPagesDir = (run: string) => path.join(os.tmpdir(), `acct-pages-${run}`);

/**
 * The hosted pages (apps/web) in `outDir`, as `npm run build` makes apps/web/dist: built with Vite by
 * the first file of a run that asks (three do: 5 to 7 s of CPU each time), then copied. A file that
 * finds the build under way in another worker waits for it.
 */
export function buildPages(outDir: string): void {
  // Outside a jest run (no run id, no teardown to remove it) nothing is kept between calls.
  if (!process.env.TEST_RUN_ID) return vite(outDir);
  const run = builtPagesDir(process.env.TEST_RUN_ID);
  const done = path.join(run, 'done');
  const built = path.join(run, 'dist');
  let mine = false;
  try {
    fs.mkdirSync(run, { recursive: false, mode: 0o700 });
    mine = true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  if (mine) {
    try {
      vite(built);
    } catch (err) {
      // The next file to ask builds again and fails with the compiler's words itself.
      fs.rmSync(run, { recursive: true, force: true });
      throw err;
    }
    fs.writeFileSync(done, '');
  } else {
    // Another file is building: wait (without a timer, this is synchronous) for it to finish or fail.
    const deadline = Date.now() + 120_000;
    const pause = new Int32Array(new SharedArrayBuffer(4));
    while (!fs.existsSync(done) && fs.existsSync(run) && Date.now() < deadline) Atomics.wait(pause, 0, 0, 100);
    if (!fs.existsSync(done)) return vite(outDir);
  }
  fs.cpSync(built, outDir, { recursive: true });
}

function vite(outDir: string): void {
  const bin = path.join(path.dirname(require.resolve('vite/package.json')), 'bin', 'vite.js');
  const build = spawnSync(process.execPath, [bin, 'build', '--outDir', outDir, '--emptyOutDir', '--logLevel', 'warn'], { cwd: path.join(repositoryRoot, 'apps', 'web'), encoding: 'utf8' });
  if (build.status !== 0) throw new Error(`the pages did not build: ${build.stdout}${build.stderr}`);
}
