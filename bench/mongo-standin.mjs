#!/usr/bin/env node
// Operations per second of the MongoDB stand-in through mongoose: insertOne (create) and findOne by a
// unique email, sequential (one in flight) and with 20 in flight. Needs `npm run build` first.
// Usage: node bench/mongo-standin.mjs [count]
import os from 'node:os';
import fs from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const mongoose = require('mongoose');
const { startMongoStandin } = require('../libs/mongo-standin/dist/index.js');

const count = Number(process.argv[2] ?? 5000);
const standin = await startMongoStandin({});
const conn = await mongoose.createConnection(standin.url, { dbName: 'bench' }).asPromise();
const User = conn.model('User', new mongoose.Schema({ email: { type: String, unique: true }, name: String, passwordHash: String }));
await User.init();

async function measure(label, n, concurrency, op) {
  let next = 0;
  const started = process.hrtime.bigint();
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < n) await op(next++);
  }));
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const result = { label, n, concurrency, seconds: +seconds.toFixed(3), opsPerSecond: Math.round(n / seconds) };
  console.log(`${label.padEnd(28)} ${String(result.opsPerSecond).padStart(7)} ops/s  (${n} ops, ${concurrency} in flight)`);
  return result;
}

const results = [
  await measure('insertOne (create), seq', count, 1, (i) => User.create({ email: `s${i}@bench.io`, name: 'n', passwordHash: 'x'.repeat(60) })),
  await measure('insertOne (create), x20', count, 20, (i) => User.create({ email: `p${i}@bench.io`, name: 'n', passwordHash: 'x'.repeat(60) })),
  await measure('findOne by email, seq', count, 1, (i) => User.findOne({ email: `s${i % count}@bench.io` }).lean()),
  await measure('findOne by email, x20', count, 20, (i) => User.findOne({ email: `p${i % count}@bench.io` }).lean()),
];
await conn.close();
await standin.close();

const record = { date: new Date().toISOString(), host: os.hostname(), cpus: os.cpus().length, cpu: os.cpus()[0]?.model, node: process.version, results };
fs.mkdirSync(new URL('./results/', import.meta.url), { recursive: true });
const file = new URL(`./results/mongo-standin-${record.date.slice(0, 10)}-${os.hostname()}.json`, import.meta.url);
fs.writeFileSync(file, `${JSON.stringify(record, null, 2)}\n`);
console.log(`written to bench/results/${file.pathname.split('/').pop()}`);
