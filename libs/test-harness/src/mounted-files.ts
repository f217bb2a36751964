// Deployment files name secrets by the path they are mounted at (`/keys/…`, `/run/secrets/…`); a
// test that loads such an environment on this machine points each `_FILE` variable at a stand-in file.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

let standIn: string | undefined;

/** The environment with every `NAME_FILE` value replaced by a readable stand-in file. */
export function withMountedFiles(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  if (!standIn) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mounted-'));
    // Gone with the test process: nothing of a run is left in the machine's temporary folder.
    process.once('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
    standIn = path.join(dir, 'secret');
  }
  fs.writeFileSync(standIn, 'a mounted secret');
  return Object.fromEntries(Object.entries(env).map(([name, value]) => [name, name.endsWith('_FILE') && value ? standIn : value]));
}
