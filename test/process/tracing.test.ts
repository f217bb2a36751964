// One trace from the gateway's login request to the notifier's handling of the login push, across
// HTTP (traceparent), the outbox and RabbitMQ (message headers). The built gateway, auth and notifier
// run as processes, with tracing on (OTEL_EXPORTER_OTLP_ENDPOINT), exporting OTLP/JSON to an
// in-memory collector in this test; the instrumentations patch modules as in production (jest's
// module system would bypass them).
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { closeServer, listen } from '@acct/shared';
import { buildWorkspaces } from '@acct/test-harness/build';
import { call } from '@acct/test-harness/http-client';
import { isolatedNames, testUrls, type TestNames } from '@acct/test-harness/isolation';
import { removeNotifierNames } from '@acct/test-stack/notifier';
import { loadNotifierConfig } from '@acct/notifier';
import { testKeys } from '@acct/test-harness/keys';
import { until } from '@acct/test-harness/until';
import { stopChild } from '@acct/test-harness/processes';
import { scaled } from '@acct/test-harness/time-scale';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const deps = require('../../scripts/lib/dependencies.js');

const root = path.resolve(__dirname, '..', '..');
type Span = { service: string; traceId: string; spanId: string; parentSpanId?: string; name: string; kind: number; attributes: Record<string, unknown> };

const spans: Span[] = [];
let collector: http.Server;
const children: ChildProcess[] = [];
const output: string[] = [];
const mailDir = fs.mkdtempSync(path.join(os.tmpdir(), 'acct-trace-mail-'));

function attributesOf(list: Array<{ key: string; value: Record<string, unknown> }> = []): Record<string, unknown> {
  return Object.fromEntries(list.map((a) => [a.key, Object.values(a.value)[0]]));
}

/** An OTLP/HTTP receiver that keeps every span it is sent, in memory. */
async function startCollector(): Promise<string> {
  collector = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const message = JSON.parse(body || '{}');
      for (const resourceSpans of message.resourceSpans ?? []) {
        const service = String(attributesOf(resourceSpans.resource?.attributes)['service.name']);
        for (const scope of resourceSpans.scopeSpans ?? []) {
          for (const s of scope.spans ?? []) {
            spans.push({ service, traceId: s.traceId, spanId: s.spanId, parentSpanId: s.parentSpanId || undefined, name: s.name, kind: s.kind, attributes: attributesOf(s.attributes) });
          }
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{}');
    });
  });
  return `http://127.0.0.1:${await listen(collector, 0, '127.0.0.1')}`;
}

async function startService(name: string, env: Record<string, string>): Promise<void> {
  const child = spawn(process.execPath, [path.join(root, 'services', name, 'dist', 'start.js')], { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout!.on('data', (d) => output.push(`[${name}] ${d}`));
  child.stderr!.on('data', (d) => output.push(`[${name}] ${d}`));
  children.push(child);
  await deps.waitForPort(Number(env.HEALTH_PORT), 20_000, child, name);
}

let gatewayUrl: string;
let names: TestNames;

beforeAll(async () => {
  buildWorkspaces();
  const otlp = await startCollector();
  names = isolatedNames('tracing');
  const urls = testUrls();
  const keys = testKeys();
  const common = {
    NODE_ENV: 'development',
    LOG_LEVEL: 'warn',
    OTEL_EXPORTER_OTLP_ENDPOINT: otlp,
    // Every request, so the test can follow each one (production samples 1 %).
    OTEL_TRACES_SAMPLER: 'always_on',
    OTEL_BSP_SCHEDULE_DELAY: '100',
    SHUTDOWN_DELAY_MS: '0',
    MONGO_URL: urls.mongo,
    REDIS_URL: urls.redis,
    AMQP_URL: urls.amqp,
    EVENTS_EXCHANGE: names.exchange,
    JWT_PUBLIC_KEY: keys.publicKey,
  };
  const port = async () => String(await deps.freePort());
  const authPort = await port();
  await startService('notifier', { ...common, HEALTH_PORT: await port(), MONGO_DB: `${names.mongoDb}_notifier`, REDIS_PREFIX: `${names.redisPrefix}n:`, QUEUE_PREFIX: names.queuePrefix, MAIL_DIR: mailDir });
  await startService('auth', { ...common, PORT: authPort, HEALTH_PORT: await port(), MONGO_DB: `${names.mongoDb}_auth`, REDIS_PREFIX: `${names.redisPrefix}a:`, JWT_PRIVATE_KEY: keys.privateKey, BCRYPT_COST: '4' });
  const gatewayPort = await port();
  await startService('gateway', { ...common, PORT: gatewayPort, HEALTH_PORT: await port(), AUTH_URL: `http://127.0.0.1:${authPort}`, DESKTOP_URL: `http://127.0.0.1:${authPort}` });
  await deps.waitForPort(Number(gatewayPort), 10_000, children[2], 'gateway');
  gatewayUrl = `http://127.0.0.1:${gatewayPort}`;
}, 90_000);

afterAll(async () => {
  // Each service's own shutdown, however long a loaded machine makes it (it used to be waited for without end).
  await Promise.all(children.map((child) => stopChild(child, 'SIGTERM', scaled(20_000))));
  if (collector) await closeServer(collector);
  fs.rmSync(mailDir, { recursive: true, force: true });
  // The notifier process ran with the default retry delays.
  if (names) await removeNotifierNames(names, loadNotifierConfig({}).RETRY_DELAYS_MS);
});

describe('tracing (OTEL_EXPORTER_OTLP_ENDPOINT set)', () => {
  it("follows one user login from the gateway through auth and RabbitMQ to the notifier's push handling", async () => {
    const account = { name: 'Traced', email: `traced.${Date.now()}@example.com`, password: 'correct horse battery' };
    expect((await call(gatewayUrl, 'POST', '/api/auth/user/register', { body: account })).status).toBe(201);
    const login = await call(gatewayUrl, 'POST', '/api/auth/user/login', { body: { email: account.email, password: account.password } });
    expect(login.status).toBe(200);

    const isLoginEntry = (s: Span) => s.service === 'gateway' && s.kind === 2 && Object.values(s.attributes).some((v) => String(v).includes('/api/auth/user/login'));
    const handled = (traceId: string) => spans.find((s) => s.service === 'notifier' && s.traceId === traceId && s.name === 'notifier handle user.login.succeeded');
    // Each process exports in its own batches, so the spans of one trace arrive in any order: wait
    // until every span asserted below is in: the notifier's handling, auth's publish (which ends only
    // on the broker's confirm), and auth's server span, which ends only once the answer is sent and
    // may come in a batch after the publish (a CI run asserted before it arrived).
    const arrived = () => {
      const root = spans.find(isLoginEntry);
      const ofAuth = (kind: number) => root !== undefined && spans.some((s) => s.traceId === root.traceId && s.service === 'auth' && s.kind === kind);
      return Boolean(root && handled(root.traceId) && ofAuth(4) && ofAuth(2));
    };
    try {
      await until(arrived, 15_000, 'the notifier handling and the auth publish in the trace of the login');
    } catch (err) {
      throw new Error(`${(err as Error).message}\nspans: ${JSON.stringify(spans.map((s) => [s.service, s.name, s.traceId.slice(0, 8)]))}\n${output.join('').slice(-3000)}`);
    }
    const entry = spans.find(isLoginEntry)!;
    const trace = spans.filter((s) => s.traceId === entry.traceId);
    // The gateway's request span is the root; auth's server span, its stores' spans, the publish
    // and the notifier's handling all belong to it.
    expect(entry.parentSpanId).toBeUndefined();
    expect(trace.some((s) => s.service === 'auth' && s.kind === 2)).toBe(true);
    expect(trace.some((s) => s.service === 'auth' && /mongo|redis/i.test(`${s.name} ${JSON.stringify(s.attributes)}`))).toBe(true);
    expect(trace.some((s) => s.service === 'auth' && s.kind === 4)).toBe(true);
    expect(handled(entry.traceId)?.attributes['event.outcome']).toBe('no_devices');
    // A record written while handling a request names its trace: auth's failed-login record.
    await call(gatewayUrl, 'POST', '/api/auth/user/login', { body: { email: account.email, password: 'not the password' } });
    await until(() => output.join('').includes('"reason":"wrong_password"'), 5_000, 'the failed-login record');
    const failed = output.join('').split('\n').find((line) => line.includes('"reason":"wrong_password"'))!;
    const failedTrace = /"trace_id":"([0-9a-f]{32})"/.exec(failed)?.[1];
    expect(failedTrace).toBeDefined();
    await until(() => spans.some((s) => s.traceId === failedTrace && s.service === 'gateway' && s.kind === 2), 5_000, 'the gateway span of the failed login');

    // A secret in a query string is blanked in span attributes, as in the request log.
    await call(gatewayUrl, 'GET', '/api/desktop/latest-version?platform=linux&token=sekret-in-query');
    await until(() => spans.some((s) => s.service === 'gateway' && JSON.stringify(s.attributes).includes('token=[redacted]')), 5_000, 'the scrubbed query');

    // A client's trace context is not taken in: the request starts a new trace (the client's id is
    // an attribute only), and outside baggage goes nowhere.
    const planted = '4bf92f3577b34da6a3ce929d0e0e4736';
    await call(gatewayUrl, 'GET', '/api/desktop/latest-version?platform=win32', {
      headers: { traceparent: `00-${planted}-00f067aa0ba902b7-01`, baggage: 'tenant=planted-by-client' },
    });
    const clientSpan = await until(() => spans.find((s) => s.service === 'gateway' && s.attributes['client.trace_id'] === planted), 5_000, 'the span of the request with a client traceparent');
    expect(clientSpan.traceId).not.toBe(planted);
    expect(clientSpan.parentSpanId).toBeUndefined();
    expect(spans.filter((s) => s.traceId === planted)).toEqual([]);
    expect(JSON.stringify(spans)).not.toContain('planted-by-client');

    // No secret or email in any span.
    const everything = JSON.stringify(spans);
    expect(everything).not.toContain('sekret-in-query');
    expect(everything).not.toContain(account.email);
    expect(everything).not.toContain(account.password);
  }, 60_000);
});
