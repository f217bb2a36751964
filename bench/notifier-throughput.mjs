// Notifier throughput and latency: one notifier instance (from dist) with a recording push sender,
// on its own exchange and queues. Publishes N user.login.succeeded events at once and measures
// events/s, then a steady rate and the publish-to-sent latency. Prints one JSON line.
// Env: AMQP_URL, REDIS_URL, MONGO_URL; BENCH_EVENTS (10000), BENCH_RATE (500), BENCH_RATE_SECONDS (5).
import { randomBytes, randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const amqp = require('amqplib');
const { createLogger } = require('../libs/shared/dist/index.js');
const { loadNotifierConfig, startNotifier, queueSpecs } = require('../services/notifier/dist/index.js');

const events = Number(process.env.BENCH_EVENTS ?? 10_000);
const rate = Number(process.env.BENCH_RATE ?? 500);
const rateSeconds = Number(process.env.BENCH_RATE_SECONDS ?? 5);
const id = randomBytes(4).toString('hex');
const exchange = `bench.${id}.auth.events`;
const prefix = `bench.${id}.`;
const users = Array.from({ length: 100 }, (_, i) => `bench-user-${i}`);

const logger = createLogger({ level: 'warn', destination: require('pino').destination({ dest: '/dev/null', sync: false }) });
// The notifier logs one record per handled event at info; this level keeps the bench's own cost out.
const config = loadNotifierConfig({
  LOG_LEVEL: 'warn',
  HEALTH_PORT: '0',
  MONGO_URL: process.env.MONGO_URL,
  MONGO_DB: `bench_${id}`,
  REDIS_URL: process.env.REDIS_URL,
  REDIS_PREFIX: `bench:${id}:`,
  AMQP_URL: process.env.AMQP_URL,
  EVENTS_EXCHANGE: exchange,
  QUEUE_PREFIX: prefix,
  PREFETCH: process.env.PREFETCH ?? '100',
});

// Records when each login push is handed over. The sender sees tokens, not event ids, so latency is
// matched per device in publish order (each user has one device; queues deliver in order).
const publishedAt = new Map();
const latencies = [];
let sent = 0;
const recordingPush = {
  name: 'recording',
  async send(tokens) {
    sent++;
    const times = publishedAt.get(tokens[0]);
    if (times?.length) latencies.push(performance.now() - times.shift());
    return { successCount: tokens.length, failureCount: 0, deadTokens: [] };
  },
};
const running = await startNotifier(config, logger, { push: recordingPush });

const connection = await amqp.connect(process.env.AMQP_URL);
const channel = await connection.createConfirmChannel();
await channel.assertExchange(exchange, 'topic', { durable: true });
const publish = (type, payload) =>
  channel.publish(exchange, type, Buffer.from(JSON.stringify(payload)), { persistent: true, messageId: payload.eventId, type, contentType: 'application/json' });

for (const [i, userId] of users.entries()) {
  publish('device.registered', { eventId: randomUUID(), occurredAt: new Date().toISOString(), userId, deviceId: 'd1', platform: 'linux', pushToken: `token-${i}` });
}
await channel.waitForConfirms();

async function waitFor(check, timeoutMs, what) {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`${what}: timed out`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

// Devices must be stored before logins are sent (device events go through the same queue first).
await new Promise((r) => setTimeout(r, 1500));

function publishLogin(i) {
  const userId = users[i % users.length];
  const token = `token-${i % users.length}`;
  if (!publishedAt.has(token)) publishedAt.set(token, []);
  publishedAt.get(token).push(performance.now());
  publish('user.login.succeeded', { eventId: randomUUID(), occurredAt: new Date().toISOString(), userId, ip: '127.0.0.1' });
}

// 1. Throughput: all events at once.
const burstStart = performance.now();
for (let i = 0; i < events; i++) publishLogin(i);
await channel.waitForConfirms();
await waitFor(() => sent >= events, 120_000, 'burst');
const burstSeconds = (performance.now() - burstStart) / 1000;
const burstLatencies = latencies.splice(0).sort((a, b) => a - b);

// 2. Latency at a steady rate.
sent = 0;
publishedAt.clear();
const total = rate * rateSeconds;
const steadyStart = performance.now();
for (let i = 0; i < total; i++) {
  const due = steadyStart + (i * 1000) / rate;
  const wait = due - performance.now();
  if (wait > 1) await new Promise((r) => setTimeout(r, wait));
  publishLogin(i);
}
await channel.waitForConfirms();
await waitFor(() => sent >= total, 60_000, 'steady');
const steady = latencies.splice(0).sort((a, b) => a - b);
const pct = (list, p) => Math.round(list[Math.min(list.length - 1, Math.floor((p / 100) * list.length))] * 10) / 10;

const rss = Math.round(process.memoryUsage().rss / 1024 / 1024);
await running.stop();
for (const spec of queueSpecs(prefix, config.RETRY_DELAYS_MS)) {
  for (const q of [spec.name, spec.dead, ...spec.retries.map((r) => r.name)]) await channel.deleteQueue(q).catch(() => undefined);
}
await channel.deleteExchange(exchange).catch(() => undefined);
await connection.close();
process.stdout.write(
  `${JSON.stringify({
    events,
    eventsPerSecond: Math.round(events / burstSeconds),
    burstP50Ms: pct(burstLatencies, 50),
    burstP99Ms: pct(burstLatencies, 99),
    steadyRate: rate,
    steadyP50Ms: pct(steady, 50),
    steadyP99Ms: pct(steady, 99),
    rssMb: rss,
  })}\n`,
);
process.exit(0);
