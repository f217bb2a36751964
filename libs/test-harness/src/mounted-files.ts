// Deployment files name secrets by the path they are mounted at (`/keys/…`, `/run/secrets/…`); a
// test that loads such an environment on this machine points each `_FILE` variable at a stand-in file.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { testRunId } from './isolation';

/** The run's stand-in folder: one per test run, removed by the global teardown (jest ends workers without their exit handlers). */
export const mountedFilesDir = (run = testRunId()) => path.join(os.tmpdir(), `acct-mounted-${run}`);

let standIn: string | undefined;

/** The environment with every `NAME_FILE` value replaced by a readable stand-in file. */
export function withMountedFiles(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  if (!standIn) {
    fs.mkdirSync(mountedFilesDir(), { recursive: true, mode: 0o700 });
    standIn = path.join(mountedFilesDir(), 'secret');
  }
  fs.writeFileSync(standIn, 'a mounted secret');
  return Object.fromEntries(Object.entries(env).map(([name, value]) => [name, name.endsWith('_FILE') && value ? standIn : value]));
}
