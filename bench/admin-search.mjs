#!/usr/bin/env node
// The admin console's reads on a seeded deployment: GET /api/admin/users (first page, paging on by
// cursor, searching by email or name) with 10,000 users, through the gateway of a running stack,
// one request in flight, p50/p95/max per kind. Seeds the users straight into the auth database
// (no bcrypt per user), registers the first admin through the API.
//   npm start                       (another terminal: a fresh stack, its first admin still free)
//   node bench/admin-search.mjs [users=10000] [requests=200]
// Writes bench/results/admin-search-<time>.json.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const { MongoClient, ObjectId } = require('mongodb');

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const lock = path.join(root, '.stack', 'stack.json');
if (!fs.existsSync(lock)) {
  console.error('no running stack: start one with npm start');
  process.exit(1);
}
const stack = JSON.parse(fs.readFileSync(lock, 'utf8'));
if (!stack.ready) {
  console.error('the stack is still starting; run this once npm start says the gateway is ready');
  process.exit(1);
}
const users = Number(process.argv[2] ?? 10_000);
const requests = Number(process.argv[3] ?? 200);
const gateway = stack.gatewayUrl;

// ---- seed ----
const mongo = await MongoClient.connect(stack.mongoUrl);
const collection = mongo.db(stack.isolation.MONGO_DB_AUTH).collection('users');
const existing = await collection.countDocuments({ email: /@seed\.example\.com$/ });
if (existing < users) {
  process.stdout.write(`seeding ${users - existing} users… `);
  const started = Date.now();
  // A real bcrypt hash of nothing anyone types: the seeded users are listed, never signed in.
  const hash = '$2b$04$abcdefghijklmnopqrstuu1b1x7/kbvSVOtnGSiSPDJ6gq0pVQ3nW';
  for (let from = existing; from < users; from += 1000) {
    const batch = [];
    for (let i = from; i < Math.min(users, from + 1000); i++) {
      const now = new Date(Date.now() - (users - i) * 1000);
      batch.push({ _id: new ObjectId(), email: `user-${String(i).padStart(5, '0')}@seed.example.com`, name: `Seed ${i}`, passwordHash: hash, role: 'user', disabled: i % 50 === 0, twoFactorEnabled: false, credentialEpoch: 0, createdAt: now, updatedAt: now });
    }
    await collection.insertMany(batch, { ordered: false });
  }
  console.log(`${((Date.now() - started) / 1000).toFixed(1)} s`);
}
await mongo.close();

// ---- an admin ----
const admin = { name: 'Bench', email: `bench.${Date.now().toString(36)}@example.com`, password: 'a bench admin passphrase' };
const json = (method, url, body, token) =>
  fetch(`${gateway}${url}`, { method, headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) }, body: body ? JSON.stringify(body) : undefined });
const registered = await json('POST', '/api/auth/admin/register', admin);
if (registered.status !== 201) {
  console.error(`the first admin could not register (${registered.status}): start a fresh stack (npm start with the in-memory MongoDB stand-in) or open admin registration`);
  process.exit(1);
}
const login = await (await json('POST', '/api/auth/admin/login', { email: admin.email, password: admin.password })).json();
const token = login.data?.accessToken;
if (!token) {
  console.error(`admin login gave no session: ${JSON.stringify(login).slice(0, 200)}`);
  process.exit(1);
}

// ---- measure ----
async function timed(url) {
  const started = process.hrtime.bigint();
  const res = await json('GET', url, undefined, token);
  const body = await res.json();
  if (res.status !== 200) throw new Error(`${url} answered ${res.status}: ${JSON.stringify(body).slice(0, 200)}`);
  return { ms: Number(process.hrtime.bigint() - started) / 1e6, body };
}
const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
async function measure(label, next) {
  for (let i = 0; i < 20; i++) await timed(await next(i)); // warm-up
  const times = [];
  let found = 0;
  for (let i = 0; i < requests; i++) {
    const { ms, body } = await timed(await next(i));
    times.push(ms);
    found = body.data.users.length;
  }
  times.sort((a, b) => a - b);
  const row = { label, requests, p50: +percentile(times, 50).toFixed(1), p95: +percentile(times, 95).toFixed(1), max: +times[times.length - 1].toFixed(1), lastPageSize: found };
  console.log(`${label.padEnd(44)} p50 ${String(row.p50).padStart(6)} ms  p95 ${String(row.p95).padStart(6)} ms  max ${String(row.max).padStart(6)} ms`);
  return row;
}

// Cursors of 50 pages in, found once, to page from deep inside the list too.
const cursors = [];
let cursor = '';
for (let page = 0; page < 50; page++) {
  const { body } = await timed(`/api/admin/users?limit=20${cursor ? `&cursor=${cursor}` : ''}`);
  cursor = body.data.nextCursor;
  cursors.push(cursor);
}

const rows = [
  await measure('first page (limit 20)', () => '/api/admin/users?limit=20'),
  await measure('a page by cursor (pages 1-50)', (i) => `/api/admin/users?limit=20&cursor=${cursors[i % cursors.length]}`),
  await measure('search: one user by email fragment', (i) => `/api/admin/users?limit=20&query=user-${String((i * 37) % users).padStart(5, '0')}`),
  await measure('search: a name prefix of many (Seed 9…)', () => '/api/admin/users?limit=20&query=Seed%209'),
  await measure('search: nothing matches (whole scan)', () => '/api/admin/users?limit=20&query=nobody-at-all'),
  await measure('unverified only (none here: a whole scan)', () => '/api/admin/users?limit=20&emailVerified=false'),
  await measure('disabled only, by fragment (a whole scan)', (i) => `/api/admin/users?limit=20&disabled=true&query=user-${String((i * 37) % users).padStart(5, '0')}`),
  await measure('not disabled, a page by cursor', (i) => `/api/admin/users?limit=20&disabled=false&cursor=${cursors[i % cursors.length]}`),
];

const result = {
  measuredAt: new Date().toISOString(),
  command: `node bench/admin-search.mjs ${users} ${requests}`,
  machine: `${os.cpus()[0]?.model ?? 'cpu'} × ${os.cpus().length}, node ${process.version}`,
  mongo: stack.mongoUrl.includes('127.0.0.1') ? 'the stack’s MongoDB (npm start: a local mongod, or the in-memory stand-in)' : stack.mongoUrl.replace(/\/\/[^@]*@/, '//'),
  users,
  rows,
};
fs.mkdirSync(path.join(root, 'bench', 'results'), { recursive: true });
const file = path.join(root, 'bench', 'results', `admin-search-${result.measuredAt.replace(/[:.]/g, '-')}.json`);
fs.writeFileSync(file, `${JSON.stringify(result, null, 2)}\n`);
console.log(`written to ${path.relative(root, file)}`);
