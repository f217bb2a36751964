import http from 'node:http';
import express from 'express';
import { AppError, closeServer, createMemoryLogger, errorCatalogue, errors, listen } from '@acct/shared';
import { MAX_JSON_DEPTH, errorHandler, jsonBody, nestsDeeperThan, notFoundHandler } from '@acct/shared/http';
import { call } from '@acct/test-harness/http-client';

describe('shared HTTP pieces', () => {
  const { logger, records } = createMemoryLogger();
  let server: http.Server;
  let base: string;

  beforeAll(async () => {
    const app = express();
    app.use(jsonBody('1kb'));
    app.post('/echo', (req, res) => void res.json(req.body));
    app.get('/known', () => {
      throw errorCatalogue({ email_taken: { status: 409, meaning: 'taken' } }).error('email_taken', 'Email already registered');
    });
    app.get('/limited', () => {
      throw errors.rateLimited(12.2);
    });
    app.get('/boom', () => {
      throw new Error('database password is hunter22');
    });
    app.get('/async', async () => {
      throw new AppError('forbidden', 403, 'Forbidden');
    });
    app.use(notFoundHandler);
    app.use(errorHandler(logger));
    server = http.createServer(app);
    base = `http://127.0.0.1:${await listen(server, 0, '127.0.0.1')}`;
  });
  afterAll(() => closeServer(server));

  it('when an AppError is thrown, then its status and message reach the envelope', async () => {
    const res = await call(base, 'GET', '/known');
    expect(res.status).toBe(409);
    expect(res.body).toEqual({ success: false, message: 'Email already registered', code: 'email_taken' });
  });

  it('when a handler rejects asynchronously, then the error middleware still answers', async () => {
    expect((await call(base, 'GET', '/async')).status).toBe(403);
  });

  it('when rate limited, then it answers 429 with a whole-second Retry-After', async () => {
    const res = await call(base, 'GET', '/limited');
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('13');
  });

  it('when an unknown error is thrown, then a generic 500 answers and the cause is only logged', async () => {
    const res = await call(base, 'GET', '/boom');
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ success: false, message: 'Internal server error', code: 'internal_error' });
    expect(res.text).not.toContain('hunter22');
    expect(records.some((r) => r.level === 'error')).toBe(true);
  });

  it('when JSON nests deeper than the bound, then it answers 400 validation_failed and nothing is logged as an error; at the bound it parses', async () => {
    const before = records.filter((r) => r.level === 'error').length;
    const deep = await call(base, 'POST', '/echo', { rawBody: `${'['.repeat(MAX_JSON_DEPTH + 1)}${']'.repeat(MAX_JSON_DEPTH + 1)}` });
    expect(deep.status).toBe(400);
    expect(deep.body).toEqual({ success: false, code: 'validation_failed', message: `JSON body nested too deeply (at most ${MAX_JSON_DEPTH} levels)` });
    expect(records.filter((r) => r.level === 'error')).toHaveLength(before);
    const atBound = '['.repeat(MAX_JSON_DEPTH) + ']'.repeat(MAX_JSON_DEPTH);
    expect((await call(base, 'POST', '/echo', { rawBody: atBound })).status).toBe(200);
  });

  it.each([
    ['brackets inside strings', Buffer.from(JSON.stringify({ a: '[[[[[[[[[[', b: '{{{{{{' })), 2, false],
    ['an escaped quote before brackets in a string', Buffer.from('{"a":"\\"[[[[\\""}'), 1, false],
    ['two levels against a bound of one', Buffer.from('{"a":{"b":1}}'), 1, true],
  ])('nestsDeeperThan counts %s', (_label, raw, max, deeper) => {
    expect(nestsDeeperThan(raw, max)).toBe(deeper);
  });

  it('when JSON is malformed, then it answers 400', async () => {
    const res = await call(base, 'POST', '/echo', { rawBody: '{"a":' });
    expect(res.status).toBe(400);
    expect(res.body.message).toBe('Malformed JSON body');
  });

  it('when the body is over the limit, then it answers 413', async () => {
    const res = await call(base, 'POST', '/echo', { body: { a: 'x'.repeat(2048) } });
    expect(res.status).toBe(413);
  });

  it('when no route matches, then it answers 404 with the envelope', async () => {
    const res = await call(base, 'DELETE', '/nothing');
    expect(res.status).toBe(404);
    expect(res.body.success).toBe(false);
  });
});
