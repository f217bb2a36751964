// What a test run left behind: the databases, Redis keys, exchanges and the notifier's and desktop's queues named with
// this run's id that still exist when the run ends. Each test file must remove what it made; the
// global teardown fails the run on any leftover and names the file's label.
import fs from 'node:fs';
import type amqp from 'amqplib';
import { connectAnyNode } from '@acct/shared/amqp';
import mongoose from 'mongoose';
import { queueSpecs } from '@acct/notifier';
import { accountEventsQueue } from '@acct/desktop';
import { issuedNamesFile, openTestRedis, runMarker, scanKeys, type TestNames } from '@acct/test-harness/isolation';

/** The retry delays a test notifier may run with: the tests' own and the default. */
const DELAY_SETS = [
  [50, 100, 150],
  [1000, 10000, 60000],
];
/** How many passive checks are in flight on the one connection, each on its own channel. */
const PARALLEL_CHECKS = 32;

export async function findLeftovers(urls: { redis: string; mongo: string; amqp: string }, run: string): Promise<string[]> {
  const marker = runMarker(run);
  const issued = readIssued(run);
  const byPrefix = (name: string, prefix: (n: TestNames) => string) => issued.find((n) => name.startsWith(prefix(n)))?.label ?? 'unknown';
  const found: string[] = [];

  const redis = openTestRedis(urls.redis, { lazyConnect: true });
  try {
    await redis.connect();
    const keys = await scanKeys(redis, `${marker.redis}*`);
    const labels = new Map<string, number>();
    for (const key of keys) labels.set(byPrefix(key, (n) => n.redisPrefix), (labels.get(byPrefix(key, (n) => n.redisPrefix)) ?? 0) + 1);
    for (const [label, count] of labels) found.push(`${count} Redis key(s) of ${label}`);
  } finally {
    redis.disconnect();
  }

  const mongo = await mongoose.createConnection(urls.mongo).asPromise();
  try {
    const { databases } = await mongo.db!.admin().listDatabases();
    for (const { name } of databases as Array<{ name: string }>) {
      if (name.startsWith(marker.mongoDb)) found.push(`database ${name} of ${byPrefix(name, (n) => n.mongoDb)}`);
    }
  } finally {
    await mongo.close();
  }

  const connection = await connectAnyNode(urls.amqp);
  try {
    // A passive check of a missing exchange or queue closes its channel: one channel per check.
    const exists = async (check: (channel: amqp.Channel) => Promise<unknown>) => {
      const channel = await connection.createChannel();
      channel.on('error', () => undefined);
      try {
        await check(channel);
        await channel.close();
        return true;
      } catch {
        return false;
      }
    };
    const checks: Array<{ what: string; check: (channel: amqp.Channel) => Promise<unknown> }> = [];
    for (const names of issued) {
      checks.push({ what: `exchange ${names.exchange} of ${names.label}`, check: (c) => c.checkExchange(names.exchange) });
      const queues = new Set(DELAY_SETS.flatMap((delays) => queueSpecs(names.queuePrefix, delays).flatMap((s) => [s.name, s.dead, ...s.retries.map((r) => r.name)])));
      queues.add(accountEventsQueue(names.queuePrefix));
      for (const queue of queues) checks.push({ what: `queue ${queue} of ${names.label}`, check: (c) => c.checkQueue(queue) });
    }
    // Eighteen checks a name a test file asked for: one at a time they took 52 s at the end of a full
    // `npm test`, PARALLEL_CHECKS at once 1.6 s (2026-11-26, 2-core VM).
    const present: boolean[] = [];
    let next = 0;
    const worker = async () => {
      while (next < checks.length) {
        const i = next++;
        present[i] = await exists(checks[i].check);
      }
    };
    await Promise.all(Array.from({ length: Math.min(PARALLEL_CHECKS, checks.length) }, worker));
    found.push(...checks.filter((_, i) => present[i]).map((c) => c.what));
  } finally {
    await connection.close().catch(() => undefined);
  }
  return found;
}

function readIssued(run: string): Array<TestNames & { label: string }> {
  const file = issuedNamesFile(run);
  if (!fs.existsSync(file)) return [];
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line));
}
