// Deployment files name secrets by the path they are mounted at (`/keys/…`, `/run/secrets/…`); a
// test that loads such an environment on this machine points each `_FILE` variable at a stand-in file.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

let standIn: string | undefined;

/** The environment with every `NAME_FILE` value replaced by a readable stand-in file. */
export function withMountedFiles(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  standIn ??= path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'mounted-')), 'secret');
  fs.writeFileSync(standIn, 'a mounted secret');
  return Object.fromEntries(Object.entries(env).map(([name, value]) => [name, name.endsWith('_FILE') && value ? standIn : value]));
}
