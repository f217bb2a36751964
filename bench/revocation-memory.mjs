#!/usr/bin/env node
// What a million revocations cost: appends N endings (one session id each, as logouts are: the worst
// case per id) to a stream of its own in the local Redis, then starts a replica's feed on it and
// reports the heap it holds, the time the load took, what the stream takes in Redis, what a check
// costs, and how long an ending published by another replica takes to reach this one.
//
//   npm run build && node --expose-gc bench/revocation-memory.mjs [count=1000000]
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import Redis from 'ioredis';

const require = createRequire(import.meta.url);
const { RevocationFeed } = require('../libs/shared/dist/redis/index.js');
const { createLogger } = require('../libs/shared/dist/index.js');

const count = Number(process.argv[2] ?? 1_000_000);
const url = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const stream = `bench:revocations:${process.pid}`;
const retentionMs = 15 * 60_000 + 60_000;
const redis = new Redis(url);
const gc = globalThis.gc ?? (() => undefined);
const mb = (bytes) => Math.round((bytes / 1024 / 1024) * 10) / 10;

try {
  process.stderr.write(`appending ${count.toLocaleString('en')} endings to ${stream}…\n`);
  const until = String(Date.now() + retentionMs);
  for (let done = 0; done < count; ) {
    const pipeline = redis.pipeline();
    const batch = Math.min(10_000, count - done);
    for (let i = 0; i < batch; i++) pipeline.xadd(stream, '*', 'sids', randomBytes(16).toString('base64url'), 'until', until);
    await pipeline.exec();
    done += batch;
    if (done % 200_000 === 0) process.stderr.write(`  ${done.toLocaleString('en')}\n`);
  }
  const streamBytes = Number(await redis.call('MEMORY', 'USAGE', stream, 'SAMPLES', '0'));

  gc();
  gc();
  const before = process.memoryUsage();
  const follower = new Redis(url);
  const reader = new Redis(url);
  const feed = new RevocationFeed(follower, reader, createLogger({ level: 'warn' }), { stream, maxStalenessMs: 1000 });
  const started = performance.now();
  await feed.start();
  const loadMs = performance.now() - started;
  gc();
  gc();
  const after = process.memoryUsage();
  // A lookup as the request path makes it, for a session that did not end.
  const probes = 1_000_000;
  const ids = Array.from({ length: 1000 }, () => randomBytes(16).toString('base64url'));
  const t = performance.now();
  let hits = 0;
  for (let i = 0; i < probes; i++) if (feed.isRevoked(ids[i % 1000]) === true) hits++;
  const lookupNs = ((performance.now() - t) * 1e6) / probes;

  // From one replica's publish to another's memory, 200 times, one at a time.
  const publisher = new RevocationFeed(new Redis(url), new Redis(url), createLogger({ level: 'warn' }), { stream, maxStalenessMs: 1000 });
  await publisher.start();
  const delays = [];
  for (let i = 0; i < 200; i++) {
    const id = randomBytes(16).toString('base64url');
    const t0 = performance.now();
    await publisher.publish([id], { retentionMs });
    while (feed.isRevoked(id) !== true) await new Promise((r) => setImmediate(r));
    delays.push(performance.now() - t0);
  }
  await publisher.close();
  delays.sort((a, b) => a - b);
  const at = (q) => Math.round(delays[Math.floor(q * (delays.length - 1))] * 100) / 100;

  const result = {
    propagationMs: { p50: at(0.5), p99: at(0.99), max: at(1) },
    revocations: feed.size,
    heapMB: mb(after.heapUsed - before.heapUsed),
    bytesPerRevocation: Math.round((after.heapUsed - before.heapUsed) / feed.size),
    rssMB: mb(after.rss - before.rss),
    loadSeconds: Math.round(loadMs / 100) / 10,
    redisStreamMB: mb(streamBytes),
    lookupNs: Math.round(lookupNs),
    falseHits: hits,
    node: process.version,
  };
  console.log(JSON.stringify(result, null, 2));
  await feed.close();
} finally {
  await redis.del(stream);
  await redis.quit();
}
