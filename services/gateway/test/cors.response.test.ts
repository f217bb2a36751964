// CORS for an admin panel on its own origin, with the headers a real browser (Chromium 131) sends:
// a preflight is answered only for a listed origin and a route that exists; actual answers carry
// credentials headers only for a listed origin; unlisted origins and unknown routes change nothing.
import http from 'node:http';
import { closeServer, listen } from '@acct/shared';
import { startGatewayUnderTest, type GatewayUnderTest } from './gateway-under-test';

const PANEL = 'https://admin.example.com';
// What Chromium sends before fetch(url, {method: 'POST', credentials: 'include', headers: {'Content-Type': 'application/json', Authorization: …}}).
const chromiumPreflight = (origin: string, method: string, requestHeaders = 'authorization,content-type') => ({
  accept: '*/*',
  'access-control-request-method': method,
  'access-control-request-headers': requestHeaders,
  origin,
  'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
  'sec-fetch-mode': 'cors',
  'sec-fetch-site': 'same-site',
  'sec-fetch-dest': 'empty',
  referer: `${origin}/`,
  'accept-encoding': 'gzip, deflate, br, zstd',
  'accept-language': 'en-US,en;q=0.9',
});

function send(base: string, method: string, path: string, headers: Record<string, string>, body?: string): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${base}${path}`, { method, headers }, (res) => {
      let text = '';
      res.on('data', (c) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
    });
    req.once('error', reject);
    req.end(body);
  });
}

describe('gateway: CORS', () => {
  let upstream: http.Server;
  let gateway: GatewayUnderTest;
  let plain: GatewayUnderTest;
  let url: string;

  beforeAll(async () => {
    upstream = http.createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ success: true, message: 'Login successful' }));
    });
    url = `http://127.0.0.1:${await listen(upstream, 0, '127.0.0.1')}`;
    gateway = await startGatewayUnderTest({ AUTH_URL: url, CORS_ORIGINS: `${PANEL}, https://ops.example.com` });
    plain = await startGatewayUnderTest({ AUTH_URL: url });
  });
  afterAll(async () => {
    await gateway.close();
    await plain.close();
    await closeServer(upstream);
  });

  it("answers a listed origin's preflight for an existing route with credentials allowed", async () => {
    const res = await send(gateway.base, 'OPTIONS', '/api/auth/admin/login', chromiumPreflight(PANEL, 'POST'));
    expect(res.status).toBe(204);
    expect(res.headers).toMatchObject({
      'access-control-allow-origin': PANEL,
      'access-control-allow-credentials': 'true',
      'access-control-allow-methods': 'POST',
      'access-control-allow-headers': 'authorization, content-type',
      'access-control-max-age': '600',
    });
    expect(res.headers.vary).toContain('Origin');
    const params = await send(gateway.base, 'OPTIONS', '/api/admin/users/0123456789abcdef01234567', chromiumPreflight(PANEL, 'PUT'));
    expect([params.status, params.headers['access-control-allow-methods']]).toEqual([204, 'GET, PUT, DELETE']);
  });

  it('lets the listed origin read the actual answer, with credentials, and the headers it needs', async () => {
    const res = await send(gateway.base, 'POST', '/api/auth/admin/login', { origin: PANEL, 'content-type': 'application/json' }, '{"email":"a@b.co","password":"x"}');
    expect(res.status).toBe(200);
    expect(res.headers).toMatchObject({ 'access-control-allow-origin': PANEL, 'access-control-allow-credentials': 'true' });
    expect(res.headers['access-control-expose-headers']).toContain('Retry-After');
    expect(res.headers.vary).toContain('Origin');
  });

  it.each([
    ['an unlisted origin', chromiumPreflight('https://evil.example.com', 'POST'), '/api/auth/admin/login'],
    ['an origin that only starts like a listed one', chromiumPreflight(`${PANEL}.evil.io`, 'POST'), '/api/auth/admin/login'],
    ['an unknown route', chromiumPreflight(PANEL, 'POST'), '/api/auth/admin/nothing'],
    ['a method the route does not answer', chromiumPreflight(PANEL, 'DELETE'), '/api/auth/admin/login'],
    ['a header no app needs', chromiumPreflight(PANEL, 'POST', 'content-type,x-internal-debug'), '/api/auth/admin/login'],
  ])('answers a preflight from %s with the spec 404 and no CORS header', async (_label, headers, path) => {
    const res = await send(gateway.base, 'OPTIONS', path, headers);
    expect(res.status).toBe(404);
    expect(JSON.parse(res.body)).toEqual({ success: false, message: 'Route not found', code: 'not_found' });
    expect(Object.keys(res.headers).filter((h) => h.startsWith('access-control-'))).toEqual([]);
  });

  it.each([
    ['an unlisted origin', 'gateway', chromiumPreflight('https://evil.example.com', 'POST'), '/api/auth/admin/login', 'origin https://evil.example.com is not listed in CORS_ORIGINS'],
    ['a header no app needs', 'gateway', chromiumPreflight(PANEL, 'POST', 'authorization,x-custom'), '/api/auth/admin/login', 'request header x-custom is not allowed'],
    ['a route that does not exist', 'gateway', chromiumPreflight(PANEL, 'DELETE'), '/api/auth/admin/login', 'no route answers DELETE /api/auth/admin/login'],
    ['no CORS_ORIGINS at all', 'plain', chromiumPreflight(PANEL, 'POST'), '/api/auth/admin/login', 'CORS_ORIGINS is empty'],
  ])('logs a refused preflight with its reason: %s', async (_label, which, headers, path, reason) => {
    const target = which === 'plain' ? plain : gateway;
    const res = await send(target.base, 'OPTIONS', path, headers);
    expect(res.status).toBe(404);
    expect(target.serviceRecords).toContainEqual(expect.objectContaining({ level: 'warn', message: 'CORS preflight refused', origin: headers.origin, path, reason: expect.stringContaining(reason) }));
  });

  it('gives an unlisted origin no CORS header on an actual request', async () => {
    const res = await send(gateway.base, 'POST', '/api/auth/admin/login', { origin: 'https://evil.example.com', 'content-type': 'application/json' }, '{}');
    expect(res.status).toBe(200);
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('changes nothing when CORS_ORIGINS is empty (the default)', async () => {
    const preflight = await send(plain.base, 'OPTIONS', '/api/auth/admin/login', chromiumPreflight(PANEL, 'POST'));
    expect(preflight.status).toBe(404);
    const actual = await send(plain.base, 'POST', '/api/auth/admin/login', { origin: PANEL, 'content-type': 'application/json' }, '{}');
    expect(Object.keys(actual.headers).filter((h) => h.startsWith('access-control-'))).toEqual([]);
    expect(actual.headers.vary).toBeUndefined();
  });

  it('refuses a CORS_ORIGINS entry that is not an origin', async () => {
    await expect(startGatewayUnderTest({ CORS_ORIGINS: 'https://admin.example.com/panel' })).rejects.toThrow(/CORS_ORIGINS/);
    await expect(startGatewayUnderTest({ CORS_ORIGINS: '*' })).rejects.toThrow(/CORS_ORIGINS/);
  });

  it('lets a listed origin use the cookie routes, and refuses an unlisted one with 403 cross_site_request', async () => {
    const listed = await send(gateway.base, 'POST', '/api/auth/user/refresh', { origin: PANEL, cookie: 'userRefreshToken=abc' });
    expect(listed.status).toBe(200);
    const unlisted = await send(gateway.base, 'POST', '/api/auth/user/logout', { origin: 'https://evil.example', cookie: 'userRefreshToken=abc' });
    expect(unlisted.status).toBe(403);
    expect(JSON.parse(unlisted.body).code).toBe('cross_site_request');
    // Not a cookie route: the Origin is CORS's business there, the route still answers.
    expect((await send(gateway.base, 'POST', '/api/auth/user/login', { origin: 'https://evil.example', 'content-type': 'application/json' }, '{}')).status).toBe(200);
  });

  it('compares the page’s whole origin with the API’s, scheme included: a plain-http page of the API’s host is another origin', async () => {
    const host = new URL(gateway.base).host;
    const refresh = (origin: string, extra: Record<string, string> = {}) => send(gateway.base, 'POST', '/api/auth/user/refresh', { origin, cookie: 'userRefreshToken=abc', ...extra });
    // The gateway under test is reached over plain http: its own origin is http://<host>.
    expect((await refresh(`http://${host}`)).status).toBe(200);
    expect((await refresh(`https://${host}`)).status).toBe(403);
    // With PUBLIC_URL, that origin alone is the API's own, whatever the Host header says.
    const behindTls = await startGatewayUnderTest({ PUBLIC_URL: `https://${host}`, AUTH_URL: url });
    try {
      expect((await send(behindTls.base, 'POST', '/api/auth/user/refresh', { origin: `http://${host}`, cookie: 'userRefreshToken=abc', host })).status).toBe(403);
      expect((await send(behindTls.base, 'POST', '/api/auth/user/refresh', { origin: `https://${host}`, cookie: 'userRefreshToken=abc', host })).status).toBe(200);
    } finally {
      await behindTls.close();
    }
    // Behind a proxy TRUST_PROXY trusts, the scheme is the one it forwarded; from anyone else, the connection's.
    const proxied = await startGatewayUnderTest({ TRUST_PROXY: 'loopback', AUTH_URL: url });
    const untrusting = await startGatewayUnderTest({ AUTH_URL: url });
    try {
      const viaProxy = (base: string) => send(base, 'POST', '/api/auth/user/refresh', { origin: `https://${new URL(base).host}`, cookie: 'userRefreshToken=abc', 'x-forwarded-proto': 'https' });
      expect((await viaProxy(proxied.base)).status).toBe(200);
      expect((await viaProxy(untrusting.base)).status).toBe(403);
    } finally {
      await proxied.close();
      await untrusting.close();
    }
  });

  it('accepts the W3C trace headers a browser tracing SDK adds to a preflight', async () => {
    const res = await send(gateway.base, 'OPTIONS', '/api/auth/user/login', chromiumPreflight(PANEL, 'POST', 'content-type,traceparent,tracestate,baggage'));
    expect(res.status).toBe(204);
    expect(res.headers['access-control-allow-headers']).toBe('content-type, traceparent, tracestate, baggage');
    expect((await send(gateway.base, 'OPTIONS', '/api/auth/user/login', chromiumPreflight(PANEL, 'POST', 'content-type,x-evil'))).status).toBe(404);
  });
});
