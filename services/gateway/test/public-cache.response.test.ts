// The gateway's held public answers (public-cache.ts): the version check answered from memory within
// PUBLIC_CACHE_MS and its own max-age, what is never held, and a release change that drops them.
import http from 'node:http';
import { closeServer, listen } from '@acct/shared';
import { call } from '@acct/test-harness/http-client';
import { scaled } from '@acct/test-harness/time-scale';
import { settle, startGatewayUnderTest, type GatewayUnderTest } from './gateway-under-test';

const LATEST = '/api/desktop/latest-version';

/** A desktop (and an auth, for the release changes) stand-in that counts what reaches it and answers as told. */
async function fakeService() {
  const seen: string[] = [];
  let version = '1.0.0';
  let headers: Record<string, string> = {};
  let status = 200;
  let raw: Buffer | undefined;
  const server = http.createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    req.resume();
    if (req.url?.startsWith('/api/admin/desktop/releases')) {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ success: status < 300 }));
      return;
    }
    const body = raw ?? JSON.stringify({ success: true, message: 'Latest version', data: { version } });
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'public, max-age=60', etag: `"v${version}"`, ...headers });
    res.end(req.method === 'HEAD' ? undefined : body);
  });
  const port = await listen(server, 0, '127.0.0.1');
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    set: (next: { version?: string; headers?: Record<string, string>; status?: number; raw?: Buffer }) => {
      raw = next.raw;
      version = next.version ?? version;
      headers = next.headers ?? headers;
      status = next.status ?? status;
    },
    close: () => closeServer(server),
  };
}

const asked = (seen: string[], url: string) => seen.filter((s) => s === `GET ${url}`).length;

describe('gateway: the public answers it holds', () => {
  let service: Awaited<ReturnType<typeof fakeService>>;
  let gateway: GatewayUnderTest;

  beforeAll(async () => {
    service = await fakeService();
    gateway = await startGatewayUnderTest({ DESKTOP_URL: service.url, AUTH_URL: service.url, PUBLIC_CACHE_MS: '60000' });
  });
  afterAll(async () => {
    await gateway.close();
    await service.close();
  });
  beforeEach(() => service.set({ headers: {}, status: 200, raw: undefined }));

  it('answers the version check again from memory, with its Age, its ETag, its own request id and a request record', async () => {
    const url = `${LATEST}?platform=linux`;
    const first = await call(gateway.base, 'GET', url, { headers: { 'x-request-id': 'held-1' } });
    const second = await call(gateway.base, 'GET', url, { headers: { 'x-request-id': 'held-2' } });
    expect(asked(service.seen, url)).toBe(1);
    expect([second.status, second.body, second.headers.get('etag'), second.headers.get('cache-control')]).toEqual([200, first.body, '"v1.0.0"', 'public, max-age=60']);
    expect(second.headers.get('age')).toBe('0');
    expect(second.headers.get('x-request-id')).toBe('held-2');
    expect(second.headers.get('x-content-type-options')).toBe('nosniff');
    await settle();
    expect(gateway.records.find((r) => r.request_id === 'held-2')).toMatchObject({ method: 'GET', status: 200, path: url });
  });

  it('answers 304 from memory to a client that has the answer, and HEAD without a body', async () => {
    const url = `${LATEST}?platform=darwin`;
    await call(gateway.base, 'GET', url);
    // Not through fetch: a fetch with If-None-Match also sends `Cache-Control: no-cache`, which asks the service.
    const again = await rawGet(`${gateway.base}${url}`, { 'if-none-match': 'W/"other", "v1.0.0"', 'x-request-id': 'held-304' });
    expect([again.status, again.headers.etag, again.headers['content-type']]).toEqual([304, '"v1.0.0"', undefined]);
    await settle();
    expect(gateway.records.find((r) => r.request_id === 'held-304')).toMatchObject({ method: 'GET', status: 304, path: url });
    const head = await fetch(`${gateway.base}${url}`, { method: 'HEAD' });
    expect([head.status, (await head.arrayBuffer()).byteLength]).toEqual([200, 0]);
    expect(asked(service.seen, url)).toBe(1);
  });

  it('answers a held body byte for byte, whatever its bytes', async () => {
    const url = `${LATEST}?platform=linux&body=bytes`;
    // UTF-8 past ASCII, and bytes that are no UTF-8 at all.
    const bytes = Buffer.concat([Buffer.from('{"notes":"Übersicht ✓"}'), Buffer.from([0xff, 0xfe, 0x00, 0x80])]);
    service.set({ raw: bytes });
    const first = Buffer.from(await (await fetch(`${gateway.base}${url}`)).arrayBuffer());
    const held = await fetch(`${gateway.base}${url}`);
    expect(held.headers.get('age')).toBe('0');
    expect(Buffer.from(await held.arrayBuffer()).equals(bytes)).toBe(true);
    expect(first.equals(bytes)).toBe(true);
    expect(asked(service.seen, url)).toBe(1);
  });

  it('asks the service for a client that wants a fresh answer, and holds what it answers', async () => {
    const url = `${LATEST}?platform=win32`;
    await call(gateway.base, 'GET', url);
    service.set({ version: '1.1.0' });
    const fresh = await call(gateway.base, 'GET', url, { headers: { 'cache-control': 'no-cache' } });
    expect(fresh.body.data.version).toBe('1.1.0');
    expect((await call(gateway.base, 'GET', url)).body.data.version).toBe('1.1.0');
    expect(asked(service.seen, url)).toBe(2);
    service.set({ version: '1.0.0' });
  });

  it.each([
    ['a cookie', { 'set-cookie': 'a=b' }],
    ['a private answer', { 'cache-control': 'private, max-age=60' }],
    ['no max-age', { 'cache-control': 'public' }],
    ['no-store', { 'cache-control': 'public, max-age=60, no-store' }],
    ['Vary', { vary: 'accept-language' }],
    ['an Age past its max-age', { age: '60' }],
  ])('never holds an answer with %s', async (label, headers) => {
    service.set({ headers });
    const url = `${LATEST}?platform=linux&case=${encodeURIComponent(label)}`;
    await call(gateway.base, 'GET', url);
    await call(gateway.base, 'GET', url);
    expect(asked(service.seen, url)).toBe(2);
  });

  it('never holds what is not a 200: a 400 of an unknown platform goes to the service every time', async () => {
    const url = `${LATEST}?platform=beos`;
    const upstream = await fakeRefusal();
    const refusing = await startGatewayUnderTest({ DESKTOP_URL: upstream.url, PUBLIC_CACHE_MS: '60000' });
    try {
      expect((await call(refusing.base, 'GET', url)).status).toBe(400);
      expect((await call(refusing.base, 'GET', url)).status).toBe(400);
      expect(upstream.count()).toBe(2);
    } finally {
      await refusing.close();
      await upstream.close();
    }
  });

  it('drops what it holds once a release is published or withdrawn through it, not when the change is refused', async () => {
    const url = `${LATEST}?platform=linux&release=changes`;
    await call(gateway.base, 'GET', url);
    service.set({ status: 403 });
    await call(gateway.base, 'POST', '/api/admin/desktop/releases', { body: { platform: 'linux', version: '2.0.0' } });
    await call(gateway.base, 'GET', url);
    expect(asked(service.seen, url)).toBe(1);

    service.set({ status: 201, version: '2.0.0' });
    await call(gateway.base, 'POST', '/api/admin/desktop/releases', { body: { platform: 'linux', version: '2.0.0' } });
    expect((await call(gateway.base, 'GET', url)).body.data.version).toBe('2.0.0');
    expect(asked(service.seen, url)).toBe(2);

    service.set({ status: 200, version: '1.0.0' });
    await call(gateway.base, 'DELETE', '/api/admin/desktop/releases/linux/2.0.0');
    expect((await call(gateway.base, 'GET', url)).body.data.version).toBe('1.0.0');
    expect(asked(service.seen, url)).toBe(3);
  });

  it('holds an answer no longer than PUBLIC_CACHE_MS, and none at 0', async () => {
    const holdMs = scaled(300);
    const briefly = await startGatewayUnderTest({ DESKTOP_URL: service.url, PUBLIC_CACHE_MS: String(holdMs) });
    const never = await startGatewayUnderTest({ DESKTOP_URL: service.url, PUBLIC_CACHE_MS: '0' });
    try {
      const url = `${LATEST}?platform=linux&hold=brief`;
      await call(briefly.base, 'GET', url);
      await call(briefly.base, 'GET', url);
      expect(asked(service.seen, url)).toBe(1);
      await new Promise((r) => setTimeout(r, holdMs + 50));
      await call(briefly.base, 'GET', url);
      expect(asked(service.seen, url)).toBe(2);

      const uncached = `${LATEST}?platform=linux&hold=never`;
      await call(never.base, 'GET', uncached);
      await call(never.base, 'GET', uncached);
      expect(asked(service.seen, uncached)).toBe(2);
    } finally {
      await briefly.close();
      await never.close();
    }
  });
});

/** A desktop stand-in that refuses every check (400), counting them. */
async function fakeRefusal() {
  let count = 0;
  const server = http.createServer((req, res) => {
    count++;
    req.resume();
    res.writeHead(400, { 'content-type': 'application/json', 'cache-control': 'public, max-age=60' });
    res.end(JSON.stringify({ success: false, message: 'Unknown platform: use win32, darwin or linux' }));
  });
  const port = await listen(server, 0, '127.0.0.1');
  return { url: `http://127.0.0.1:${port}`, count: () => count, close: () => closeServer(server) };
}

/** A GET with exactly these headers (fetch adds its own to a conditional request). */
function rawGet(url: string, headers: Record<string, string>): Promise<{ status: number; headers: http.IncomingHttpHeaders }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers }, (res) => {
        res.resume();
        res.once('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers }));
      })
      .once('error', reject);
  });
}
