import http from 'node:http';
import { call } from '@acct/test-harness/http-client';
import { settle, startGatewayUnderTest, type GatewayUnderTest } from './gateway-under-test';

describe('gateway: unmatched routes', () => {
  let gateway: GatewayUnderTest;
  let base: string;
  let records: Record<string, any>[];

  beforeAll(async () => {
    gateway = await startGatewayUnderTest();
    base = gateway.base;
    records = gateway.records;
  });
  afterAll(() => gateway.close());

  it.each([
    ['GET', '/'],
    ['GET', '/anything'],
    ['POST', '/.env'],
    ['PUT', '/api'],
    ['DELETE', '/wp-admin/setup.php?x=1'],
    ['GET', '/api/auth/user/login'],
    ['DELETE', '/api/auth/user/login'],
    ['POST', '/api/auth/moderator/login'],
    ['POST', '/api/desktop/latest-version'],
    // A parameterised route, with a method it does not have.
    ['PATCH', '/api/admin/users/0123456789abcdef01234567'],
    ['POST', '/api/admin/users/0123456789abcdef01234567/avatar'],
  ])('when %s %s is asked, then it answers 404 with the JSON envelope', async (method, path) => {
    const res = await call(base, method, path);
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toMatch(/application\/json/);
    expect(res.body).toEqual({ success: false, message: 'Route not found', code: 'not_found' });
  });

  it('when a 404 is answered, then one warn record with the spec fields is logged', async () => {
    records.length = 0;
    await call(base, 'GET', '/probe?x=1');
    await new Promise((r) => setImmediate(r));
    expect(records).toHaveLength(1);
    const record = records[0];
    expect(record).toMatchObject({
      level: 'warn',
      method: 'GET',
      path: '/probe?x=1',
      status: 404,
      actor_type: 'anonymous',
    });
    expect(record.message).toMatch(/^GET \/probe\?x=1 404 \d+(\.\d+)?ms$/);
    expect(typeof record.duration_ms).toBe('number');
    expect(record.ip).toMatch(/127\.0\.0\.1/);
    expect(record.timestamp).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect(record).not.toHaveProperty('actor_id');
    expect(record).not.toHaveProperty('actor_role');
    expect(typeof record.request_id).toBe('string');
  });

  it('when a client sends X-Request-Id, then it is echoed and logged', async () => {
    records.length = 0;
    const res = await call(base, 'GET', '/x', { headers: { 'x-request-id': 'req-123' } });
    await new Promise((r) => setImmediate(r));
    expect(res.headers.get('x-request-id')).toBe('req-123');
    expect(records[0].request_id).toBe('req-123');
  });

  it.each([
    ['129 characters', 'r'.repeat(129)],
    ['spaces', 'req 123'],
    ['a line of log injection', 'req-1","level":"info'],
  ])('when a client sends a malformed X-Request-Id (%s), then a fresh id replaces it, never echoed nor logged', async (_label, sent) => {
    records.length = 0;
    const res = await call(base, 'GET', '/x', { headers: { 'x-request-id': sent } });
    await new Promise((r) => setImmediate(r));
    const given = res.headers.get('x-request-id');
    expect(given).toMatch(/^[A-Za-z0-9._:-]{1,128}$/);
    expect(given).not.toBe(sent);
    expect(records[0].request_id).toBe(given);
    expect(JSON.stringify(records)).not.toContain(sent);
  });

  it('when a client sends X-Forwarded-For, then it is not trusted by default', async () => {
    records.length = 0;
    await call(base, 'GET', '/x', { headers: { 'x-forwarded-for': '6.6.6.6' } });
    await new Promise((r) => setImmediate(r));
    expect(records[0].ip).not.toBe('6.6.6.6');
  });
});

describe('gateway: the client address on a kept-alive connection', () => {
  let gateway: GatewayUnderTest;
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  beforeAll(async () => {
    gateway = await startGatewayUnderTest({ TRUST_PROXY: 'loopback' });
  });
  afterAll(async () => {
    agent.destroy();
    await gateway.close();
  });

  /** One GET on the agent's one connection; answers whether that connection was used before. */
  function get(headers: Record<string, string>): Promise<boolean> {
    return new Promise((resolve, reject) => {
      const req = http.get(`${gateway.base}/no/such/route`, { agent, headers }, (res) => {
        res.resume();
        res.once('end', () => resolve(req.reusedSocket));
      });
      req.once('error', reject);
    });
  }

  it('when requests with and without X-Forwarded-For share one connection, then each is logged with its own client', async () => {
    gateway.records.length = 0;
    const reused = [await get({}), await get({ 'x-forwarded-for': '203.0.113.7' }), await get({}), await get({ 'x-forwarded-for': '2001:DB8::0:1' })];
    await settle();
    expect(reused).toEqual([false, true, true, true]);
    expect(gateway.records.map((r) => r.ip)).toEqual(['127.0.0.1', '203.0.113.7', '127.0.0.1', '2001:db8::1']);
  });
});
