import http from 'node:http';
import { closeServer, createMemoryLogger, listen } from '@acct/shared';
import { createApp, gatewaySchema } from '@acct/gateway';
import { call } from '../../../test/harness/http-client';

describe('gateway: unmatched routes', () => {
  const { logger } = createMemoryLogger();
  const { logger: requestLogger, records } = createMemoryLogger();
  let server: http.Server;
  let base: string;

  beforeAll(async () => {
    const config = gatewaySchema.parse({});
    server = http.createServer(createApp({ config, logger, requestLogger }));
    base = `http://127.0.0.1:${await listen(server, 0, '127.0.0.1')}`;
  });
  afterAll(() => closeServer(server));

  it.each([
    ['GET', '/'],
    ['GET', '/anything'],
    ['POST', '/.env'],
    ['PUT', '/api'],
    ['DELETE', '/wp-admin/setup.php?x=1'],
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

  it('when a client sends X-Forwarded-For, then it is not trusted by default', async () => {
    records.length = 0;
    await call(base, 'GET', '/x', { headers: { 'x-forwarded-for': '6.6.6.6' } });
    await new Promise((r) => setImmediate(r));
    expect(records[0].ip).not.toBe('6.6.6.6');
  });
});
