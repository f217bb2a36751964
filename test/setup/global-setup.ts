// Jest global setup: resolves MongoDB, Redis and RabbitMQ once per run, exactly as the stack does,
// and hands their URLs and the run's id (in every name a test makes) to every test worker through
// the environment.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Config } from '@jest/types';
import { startMongoStandin } from '@acct/mongo-standin';
import { findChromium } from '@acct/test-harness/browser';
import { buildWorkspaces } from '@acct/test-harness/build';
import { startSharedStack } from '../stack/src/shared';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const deps = require('../../scripts/lib/dependencies.js');

interface Resolved {
  url: string;
  source: string;
  stop?: () => Promise<void>;
}

/** Every test file of the run's roots (jest.config.js's testMatch: a `test` folder's `*.test.ts`). */
function testFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' || entry.name === 'dist' ? [] : testFiles(full);
    return entry.name.endsWith('.test.ts') && full.includes(`${path.sep}test${path.sep}`) ? [full] : [];
  });
}

/**
 * The sources of the test files this run's path patterns (or paths) select; undefined for a whole
 * run, which includes every file. What they name tells the setup what the run needs, so that a run
 * of unit tests neither builds the workspaces nor starts a stack.
 */
function sourcesOfRun(globalConfig: Pick<Config.GlobalConfig, 'nonFlagArgs' | 'runTestsByPath' | 'rootDir'>): string[] | undefined {
  const patterns = globalConfig.nonFlagArgs ?? [];
  if (patterns.length === 0) return undefined;
  return ['libs', 'services', 'test']
    .flatMap((root) => testFiles(path.join(globalConfig.rootDir, root)))
    .filter((file) => patterns.some((pattern) => (globalConfig.runTestsByPath ? path.resolve(pattern) === file : new RegExp(pattern, 'i').test(file))))
    .map((file) => fs.readFileSync(file, 'utf8'));
}

export default async function globalSetup(globalConfig: Config.GlobalConfig): Promise<void> {
  // The browser tests' Chromium, installed here when missing (as root, from Debian's packages): once,
  // before any worker starts. Installed from a test file, a second worker would find the browser's
  // binary unpacked before its libraries and hang launching it, or take the package lock meanwhile.
  const chromium = findChromium();
  const options = { containers: true };
  const [redis, amqp, mongo] = (await Promise.all([
    deps.resolveRedis(options),
    deps.resolveAmqp(options),
    deps.resolveMongo({
      ...options,
      probeStandardPort: false,
      startStandin: async (): Promise<Resolved> => {
        const standin = await startMongoStandin({ ttlSweepMs: 200 });
        return { url: standin.url, source: 'MongoDB stand-in (in-memory)', stop: () => standin.close() };
      },
    }),
  ])) as Resolved[];
  process.env.REDIS_URL = redis.url;
  process.env.AMQP_URL = amqp.url;
  process.env.MONGO_URL = mongo.url;
  process.env.TEST_MONGO_SOURCE = mongo.source;
  process.env.TEST_RUN_ID = randomBytes(3).toString('hex');
  (globalThis as Record<string, unknown>).__ACCT_DEPS__ = [redis, amqp, mongo];
  process.stdout.write(`\ntest dependencies: redis=${redis.source}; rabbitmq=${amqp.source}; mongodb=${mongo.source}; time scale ${process.env.TEST_TIME_SCALE ?? 1} (TEST_TIME_SCALE, or the load average); chromium=${'path' in chromium ? chromium.path : chromium.missing}\n`);
  // A stack, the run's shared one and a file's own (test/stack/src/stack.ts), runs the built services:
  // the build is brought up to date first (incremental, about a second when nothing changed), so a
  // test never meets stale code.
  const sources = sourcesOfRun(globalConfig);
  const runNames = (marker: string) => !sources || sources.some((source) => source.includes(marker));
  if (!runNames('@acct/test-stack/')) return;
  const building = Date.now();
  buildWorkspaces();
  // No file of this run need start the compiler again (libs/test-harness/src/build.ts).
  process.env.TEST_WORKSPACES_BUILT = '1';
  if (!runNames('@acct/test-stack/shared')) {
    process.stdout.write(`build checked in ${Date.now() - building} ms\n`);
    return;
  }
  const started = Date.now();
  (globalThis as Record<string, unknown>).__ACCT_SHARED_STACK__ = await startSharedStack();
  const shared = JSON.parse(process.env.TEST_SHARED_STACK!) as { url: string };
  process.stdout.write(`shared stack at ${shared.url} (build checked in ${started - building} ms, started in ${Date.now() - started} ms)\n`);
}
