// Better Auth 1.7.25, the peer bench/scenarios/peer.mjs measures beside this stack: one node:http
// process, its own PostgreSQL database (PEER_DATABASE_URL), email and password with bcrypt at
// BCRYPT_COST (as this stack hashes), and its session cookie cache on (a get-session answered from a
// signed cookie, no database read while it is fresh). Prints its port, then serves until killed.
import http from 'node:http';
import bcrypt from 'bcrypt';
import pg from 'pg';
import { betterAuth } from 'better-auth';
import { toNodeHandler } from 'better-auth/node';
import { getMigrations } from 'better-auth/db/migration';

const cost = Number(process.env.BCRYPT_COST ?? 12);
const databaseUrl = new URL(process.env.PEER_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/bench_peer');
if (process.env.PEER_FRESH === '1') {
  // A new database for every run: the same empty start as this stack's bench gets.
  const name = databaseUrl.pathname.slice(1);
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`PEER_DATABASE_URL names an odd database: ${name}`);
  const admin = new pg.Client({ connectionString: Object.assign(new URL(databaseUrl), { pathname: '/postgres' }).toString() });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${name}`);
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
}
const pool = new pg.Pool({ connectionString: databaseUrl.toString(), max: 10 });
const auth = betterAuth({
  database: pool,
  secret: process.env.BETTER_AUTH_SECRET ?? 'a bench secret that is long enough to be accepted',
  baseURL: 'http://127.0.0.1',
  telemetry: { enabled: false },
  // The bench logs in from one address at rates no person does: as this stack's bench lifts its limits.
  rateLimit: { enabled: false },
  emailAndPassword: {
    enabled: true,
    password: { hash: (password) => bcrypt.hash(password, cost), verify: ({ hash, password }) => bcrypt.compare(password, hash) },
  },
  session: { cookieCache: { enabled: true, maxAge: 5 * 60 } },
});

const { runMigrations } = await getMigrations(auth.options);
await runMigrations();

const handler = toNodeHandler(auth);
const server = http.createServer((req, res) => void handler(req, res));
server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => process.stdout.write(`${server.address().port}\n`));
const stop = () => server.close(() => pool.end().then(() => process.exit(0)));
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
