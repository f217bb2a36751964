// The release tool: publish, list and withdraw desktop releases in the desktop service's database.
//   npm run -w services/desktop release -- publish --platform linux --version 1.4.0 --url https://… --sha256 <64 hex> [--notes "…"] [--mandatory]
//   npm run -w services/desktop release -- list [--platform linux]
//   npm run -w services/desktop release -- withdraw --platform linux --version 1.4.0
import { parseArgs } from 'node:util';
import semver from 'semver';
import { createLogger } from '@acct/shared';
import { connectMongo } from '@acct/shared/mongo';
import { loadDesktopConfig } from './config';
import { ReleaseRepository } from './data-access/release-repository';
import { PLATFORMS, isPlatform } from './domain/platforms';
import { readNewRelease } from './domain/releases';

const USAGE = `usage:
  release publish --platform <${PLATFORMS.join('|')}> --version <semver> --url <https url> --sha256 <64 hex> [--notes <text>] [--mandatory]
  release list [--platform <${PLATFORMS.join('|')}>]
  release withdraw --platform <${PLATFORMS.join('|')}> --version <semver>
The database is MONGO_URL / MONGO_DB, as for the service.`;

class UsageError extends Error {}

export interface ReleaseCommand {
  action: 'publish' | 'list' | 'withdraw';
  platform?: (typeof PLATFORMS)[number];
  version?: string;
  url?: string;
  sha256?: string;
  notes: string;
  mandatory: boolean;
}

/** Parses and checks the arguments; throws a UsageError saying what is wrong. */
export function parseReleaseCommand(argv: string[]): ReleaseCommand {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      platform: { type: 'string' },
      version: { type: 'string' },
      url: { type: 'string' },
      sha256: { type: 'string' },
      notes: { type: 'string', default: '' },
      mandatory: { type: 'boolean', default: false },
    },
  });
  const action = positionals[0];
  if (action !== 'publish' && action !== 'list' && action !== 'withdraw') throw new UsageError(`unknown or missing command '${action ?? ''}'`);
  if (values.platform !== undefined && !isPlatform(values.platform)) throw new UsageError(`--platform must be one of ${PLATFORMS.join(', ')}`);
  const command: ReleaseCommand = { action, platform: values.platform as ReleaseCommand['platform'], notes: values.notes ?? '', mandatory: values.mandatory ?? false };
  if (action === 'list') return command;
  if (!command.platform) throw new UsageError('--platform is required');
  if (!values.version || !semver.valid(values.version)) throw new UsageError(`--version must be a semantic version such as 1.4.0 (got '${values.version ?? ''}')`);
  command.version = semver.valid(values.version) as string;
  if (action === 'withdraw') return command;
  // The rules the console's publish answers by (domain/releases.ts).
  const read = readNewRelease({ ...values, version: command.version });
  if ('problem' in read) throw new UsageError(`--${read.field} ${read.problem}`);
  return { ...command, ...read.release };
}

async function main(): Promise<number> {
  let command: ReleaseCommand;
  try {
    command = parseReleaseCommand(process.argv.slice(2));
  } catch (err) {
    process.stderr.write(`release: ${(err as Error).message}\n${USAGE}\n`);
    return 2;
  }
  const config = loadDesktopConfig();
  const mongo = await connectMongo(config.MONGO_URL, createLogger({ level: 'error' }), { dbName: config.MONGO_DB, deadlineMs: 10_000 });
  try {
    const releases = new ReleaseRepository(mongo);
    await releases.init();
    if (command.action === 'list') {
      const all = await releases.list(command.platform);
      if (all.length === 0) process.stdout.write('no releases\n');
      for (const r of all) {
        process.stdout.write(`${r.platform}\t${r.version}\t${r.withdrawnAt ? 'withdrawn' : 'published'}${r.mandatory ? '\tmandatory' : ''}\t${r.publishedAt.toISOString()}\t${r.url}\n`);
      }
      return 0;
    }
    if (command.action === 'withdraw') {
      const done = await releases.withdraw(command.platform!, command.version!);
      process.stdout.write(done ? `withdrew ${command.platform} ${command.version}\n` : `no published ${command.platform} ${command.version} to withdraw\n`);
      return done ? 0 : 1;
    }
    const published = await releases.publish({ platform: command.platform!, version: command.version!, url: command.url!, sha256: command.sha256!, notes: command.notes, mandatory: command.mandatory });
    if (published === 'exists') {
      process.stderr.write(`release: ${command.platform} ${command.version} is already published\n`);
      return 1;
    }
    const latest = await releases.latest(command.platform!);
    process.stdout.write(`published ${command.platform} ${command.version}${command.mandatory ? ' (mandatory)' : ''}; latest for ${command.platform} is now ${latest?.version}\n`);
    return 0;
  } finally {
    await mongo.close();
  }
}

if (require.main === module) {
  main().then(
    (code) => process.exit(code),
    (err: unknown) => {
      process.stderr.write(`release: ${(err as Error).message}\n`);
      process.exit(1);
    },
  );
}
