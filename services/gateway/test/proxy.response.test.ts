import http from 'node:http';
import { closeServer, listen } from '@acct/shared';
import { call } from '@acct/test-harness/http-client';
import { settle, startGatewayUnderTest, type GatewayUnderTest } from './gateway-under-test';
import { scaled } from '@acct/test-harness/time-scale';
import { until } from '@acct/test-harness/until';

/** A stand-in upstream that records what reached it and answers as told. */
async function fakeUpstream(answer: (req: http.IncomingMessage, body: string, res: http.ServerResponse) => void) {
  const seen: Array<{ headers: http.IncomingHttpHeaders; body: string; url?: string }> = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      seen.push({ headers: req.headers, body, url: req.url });
      answer(req, body, res);
    });
  });
  const port = await listen(server, 0, '127.0.0.1');
  return { url: `http://127.0.0.1:${port}`, seen, close: () => closeServer(server) };
}

/** Answers the stand-in gives to a register whose body is one of these words. */
const ANSWERS: Record<string, Buffer> = {
  // UTF-8 past ASCII, and bytes that are no UTF-8 at all.
  small: Buffer.concat([Buffer.from('{"name":"Zoë ✓"}'), Buffer.from([0xff, 0xfe, 0x00, 0x80])]),
  // Past the size the gateway reads whole: streamed.
  large: Buffer.from(Array.from({ length: 40 * 1024 }, (_, i) => (i * 7919) % 256)),
  unsized: Buffer.from('{"size":"not declared"}'),
};

describe('gateway: proxying to a service', () => {
  let upstream: Awaited<ReturnType<typeof fakeUpstream>>;
  let gateway: GatewayUnderTest;

  beforeAll(async () => {
    upstream = await fakeUpstream((req, body, res) => {
      if (req.url?.startsWith('/api/auth/user/login')) {
        res.writeHead(200, { 'content-type': 'application/json', 'x-set-refresh-token': 'secret-refresh', 'x-refresh-token-max-age': '604800', 'x-internal-debug': 'no' });
        res.end(JSON.stringify({ success: true, message: 'Login successful' }));
      } else if (req.url?.startsWith('/api/auth/user/logout')) {
        res.writeHead(200, { 'content-type': 'application/json', 'x-clear-refresh-token': '1' });
        res.end(JSON.stringify({ success: true, message: 'Logged out successfully' }));
      } else if (req.url?.startsWith('/api/auth/admin/forgot-password')) {
        setTimeout(() => res.end('{}'), 2_000);
      } else if (req.url?.startsWith('/api/auth/user/register') && ANSWERS[body]) {
        const bytes = ANSWERS[body];
        if (body === 'unsized') {
          res.writeHead(200, { 'content-type': 'application/octet-stream' });
        } else {
          res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': bytes.length });
        }
        // In two pieces, the second a little later: the gateway must wait for all of it.
        res.write(bytes.subarray(0, 7));
        setTimeout(() => res.end(bytes.subarray(7)), 20);
      } else {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{}');
      }
    });
    gateway = await startGatewayUnderTest({ AUTH_URL: upstream.url, UPSTREAM_TIMEOUT_MS: '300', BODY_LIMIT: '1kb' });
  });
  afterAll(async () => {
    await gateway.close();
    await upstream.close();
  });

  it('forwards only allow-listed headers and its own client IP, never client-sent identity headers', async () => {
    upstream.seen.length = 0;
    await call(gateway.base, 'POST', '/api/auth/user/register', {
      body: { name: 'Ann' },
      headers: { 'x-client-ip': '6.6.6.6', 'x-actor-id': 'admin', 'x-refresh-token': 'forged', cookie: 'userRefreshToken=abc' },
    });
    const [forwarded] = upstream.seen;
    expect(forwarded.headers['x-client-ip']).toBe('127.0.0.1');
    expect(forwarded.headers['x-actor-id']).toBeUndefined();
    expect(forwarded.headers['x-refresh-token']).toBeUndefined();
    expect(forwarded.headers.cookie).toBeUndefined();
    expect(JSON.parse(forwarded.body)).toEqual({ name: 'Ann' });
  });

  it.each(Object.keys(ANSWERS))("sends a service's answer on byte for byte (%s)", async (kind) => {
    const res = await fetch(`${gateway.base}/api/auth/user/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: kind });
    expect(res.status).toBe(200);
    expect(Buffer.from(await res.arrayBuffer()).equals(ANSWERS[kind])).toBe(true);
  });

  it("sends the service its deadline (the gateway's wait), never a client's", async () => {
    upstream.seen.length = 0;
    await call(gateway.base, 'POST', '/api/auth/user/register', { body: {}, headers: { 'x-request-budget-ms': '99999999' } });
    expect(upstream.seen[0].headers['x-request-budget-ms']).toBe('300');
  });

  it('logs a request whose client went away before the answer as 499, not as what the service later said', async () => {
    const requestId = `gone-${Date.now()}`;
    await new Promise<void>((resolve) => {
      const req = http.request(`${gateway.base}/api/auth/admin/forgot-password`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-request-id': requestId } });
      req.on('error', () => resolve());
      req.end('{}');
      setTimeout(() => {
        req.destroy();
        resolve();
      }, 100);
    });
    // Its record once written (a busy machine takes longer), then long enough for the service's late answer to add none.
    await until(() => gateway.records.some((r) => r.request_id === requestId), 5_000, 'the request\'s log record');
    await new Promise((r) => setTimeout(r, 400));
    expect(gateway.records.filter((r) => r.request_id === requestId).map((r) => r.status)).toEqual([499]);
  });

  it('matches routes as express would: any case, an optional trailing slash, HEAD for GET', async () => {
    upstream.seen.length = 0;
    expect((await call(gateway.base, 'POST', '/API/Auth/User/Register/', { body: {} })).status).toBe(200);
    expect((await call(gateway.base, 'PUT', '/api/admin/users/abc123/avatar', { body: {} })).status).toBe(200);
    expect((await call(gateway.base, 'PUT', '/api/admin/users/abc/123/avatar', { body: {} })).status).toBe(404);
    expect(upstream.seen.map((s) => s.url)).toEqual(['/API/Auth/User/Register/', '/api/admin/users/abc123/avatar']);
  });

  it('passes the kind cookie to refresh and logout as an internal header', async () => {
    upstream.seen.length = 0;
    await call(gateway.base, 'POST', '/api/auth/user/refresh', { cookie: 'userRefreshToken=tok-1; adminRefreshToken=tok-2' });
    expect(upstream.seen[0].headers['x-refresh-token']).toBe('tok-1');
  });

  it('turns the internal refresh header into the kind cookie and never shows the header', async () => {
    const res = await call(gateway.base, 'POST', '/api/auth/user/login', { body: { email: 'a@b.co', password: 'x' } });
    expect(res.headers.get('x-set-refresh-token')).toBeNull();
    expect(res.headers.get('x-internal-debug')).toBeNull();
    expect(res.headers.get('x-refresh-token-max-age')).toBeNull();
    expect(res.setCookies).toHaveLength(1);
    expect(res.setCookies[0]).toMatch(/^userRefreshToken=secret-refresh; Max-Age=604800; Path=\/api\/auth\/user; Expires=.+; HttpOnly; SameSite=Lax$/);
  });

  it('clears the kind cookie with the same attributes when the service says so', async () => {
    const res = await call(gateway.base, 'POST', '/api/auth/user/logout');
    expect(res.setCookies[0]).toMatch(/^userRefreshToken=; Path=\/api\/auth\/user; Expires=Thu, 01 Jan 1970 00:00:00 GMT; HttpOnly; SameSite=Lax$/);
  });

  it('answers 504 when the service is slower than the bound', async () => {
    const res = await call(gateway.base, 'POST', '/api/auth/admin/forgot-password', { body: { email: 'a@b.co' } });
    expect(res.status).toBe(504);
    expect(res.body).toMatchObject({ success: false, code: 'upstream_timeout' });
  });

  it('answers 413 for a declared body over the limit, before the service', async () => {
    upstream.seen.length = 0;
    const res = await call(gateway.base, 'POST', '/api/auth/user/login', { body: { pad: 'x'.repeat(2048) } });
    expect(res.status).toBe(413);
    expect(res.body).toMatchObject({ success: false, code: 'payload_too_large' });
    expect(upstream.seen).toHaveLength(0);
  });

  it('answers 413 for a chunked body that grows past the limit', async () => {
    const chunks = (async function* () {
      for (let i = 0; i < 8; i++) yield Buffer.alloc(512, 0x61);
    })();
    const res = await fetch(`${gateway.base}/api/auth/user/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: chunks as any,
      duplex: 'half',
    } as RequestInit);
    expect(res.status).toBe(413);
  });

  it('ignores a body sent to a route that takes none', async () => {
    upstream.seen.length = 0;
    await call(gateway.base, 'POST', '/api/auth/user/refresh', { body: { injected: true } });
    expect(upstream.seen[0].body).toBe('');
  });

  it('logs the actor of a valid bearer token, and anonymous for a forged one', async () => {
    gateway.records.length = 0;
    const token = gateway.sign({ kind: 'admin', role: 'admin', sid: 's1' }, { subject: 'admin-1' });
    await call(gateway.base, 'POST', '/api/auth/user/register', { body: {}, headers: { authorization: `Bearer ${token}` } });
    await call(gateway.base, 'POST', '/api/auth/user/register', { body: {}, headers: { authorization: `Bearer ${token.slice(0, -4)}AAAA` } });
    await settle();
    expect(gateway.records[0]).toMatchObject({ actor_type: 'admin', actor_id: 'admin-1', actor_role: 'admin' });
    expect(gateway.records[1].actor_type).toBe('anonymous');
    expect(gateway.records[1]).not.toHaveProperty('actor_id');
  });
});

describe('gateway: a service that is down', () => {
  it('answers 503 quickly with the envelope and logs level error', async () => {
    const gateway = await startGatewayUnderTest({ AUTH_URL: 'http://127.0.0.1:1' });
    try {
      const started = Date.now();
      const res = await call(gateway.base, 'POST', '/api/auth/user/login', { body: { email: 'a@b.co', password: 'x' } });
      expect(res.status).toBe(503);
      expect(res.body).toEqual({ success: false, message: 'Service temporarily unavailable', code: 'service_unavailable' });
      expect(Date.now() - started).toBeLessThan(scaled(2_000));
      await settle();
      expect(gateway.records[0]).toMatchObject({ level: 'error', status: 503 });
    } finally {
      await gateway.close();
    }
  });
});

describe('gateway: the token of an ended session', () => {
  let upstream: Awaited<ReturnType<typeof fakeUpstream>>;
  let gateway: GatewayUnderTest;
  const ended = new Set(['ended-session']);
  let storeDown = false;

  beforeAll(async () => {
    upstream = await fakeUpstream((_req, _body, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"success":true,"message":"ok","data":{}}');
    });
    // As the feed answers: from memory (a boolean), or by a read that can fail when it is behind.
    gateway = await startGatewayUnderTest({ AUTH_URL: upstream.url, DESKTOP_URL: upstream.url }, {
      isRevoked: (sid) => (storeDown ? Promise.reject(new Error('Redis away')) : ended.has(sid)),
    });
  });
  afterAll(async () => {
    await gateway.close();
    await upstream.close();
  });

  const bearer = (sid: string) => ({ authorization: `Bearer ${gateway.sign({ kind: 'user', role: 'user', sid }, { subject: 'user-1' })}` });

  it('when a route takes the token, then it is refused at the edge (401 session_revoked), the service never sees it, and the log names no actor', async () => {
    upstream.seen.length = 0;
    gateway.records.length = 0;
    for (const [method, path] of [['GET', '/api/auth/user/me'], ['POST', '/api/desktop/sync'], ['GET', '/api/admin/users']]) {
      const res = await call(gateway.base, method, path, { headers: bearer('ended-session'), body: method === 'POST' ? {} : undefined });
      expect([path, res.status, res.body.code]).toEqual([path, 401, 'session_revoked']);
    }
    expect(upstream.seen).toEqual([]);
    await settle();
    expect(gateway.records.map((r) => r.actor_type)).toEqual(['anonymous', 'anonymous', 'anonymous']);
  });

  it('when a route does not take the token, then the request goes on, logged without an actor', async () => {
    upstream.seen.length = 0;
    gateway.records.length = 0;
    expect((await call(gateway.base, 'POST', '/api/auth/user/login', { headers: bearer('ended-session'), body: {} })).status).toBe(200);
    expect(upstream.seen).toHaveLength(1);
    await settle();
    expect(gateway.records[0].actor_type).toBe('anonymous');
  });

  it('when whether the session ended cannot be read, then a route that takes the token answers 503, and a live session is logged as its actor otherwise', async () => {
    storeDown = true;
    try {
      const res = await call(gateway.base, 'GET', '/api/auth/user/me', { headers: bearer('live-session') });
      expect([res.status, res.body.code]).toEqual([503, 'service_unavailable']);
    } finally {
      storeDown = false;
    }
    gateway.records.length = 0;
    expect((await call(gateway.base, 'GET', '/api/auth/user/me', { headers: bearer('live-session') })).status).toBe(200);
    await settle();
    expect(gateway.records[0]).toMatchObject({ actor_type: 'user', actor_id: 'user-1' });
  });
});
