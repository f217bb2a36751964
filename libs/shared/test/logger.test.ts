import { createLogger, createMemoryLogger, withRequestId } from '@acct/shared';

describe('createLogger', () => {
  it('writes the spec record shape: string level, message key, ISO timestamp with ms, no pid or hostname', () => {
    const { logger, records } = createMemoryLogger();
    logger.warn({ method: 'GET' }, 'GET / 404 1ms');
    const [record] = records;
    expect(record).toMatchObject({ level: 'warn', message: 'GET / 404 1ms', method: 'GET' });
    expect(record.timestamp).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect(record).not.toHaveProperty('pid');
    expect(record).not.toHaveProperty('hostname');
    expect(record).not.toHaveProperty('msg');
    expect(record).not.toHaveProperty('time');
  });

  it('stamps each record with the millisecond it was written, two loggers alike', () => {
    const stamps = ['2026-11-27T03:00:00.001Z', '2026-11-27T03:00:00.001Z', '2026-11-27T03:00:00.002Z', '2030-01-01T00:00:00.000Z'];
    const first = createMemoryLogger();
    const second = createMemoryLogger();
    const spy = jest.spyOn(Date, 'now');
    try {
      for (const at of stamps) {
        spy.mockReturnValue(Date.parse(at));
        first.logger.info('one');
        second.logger.info('two');
      }
    } finally {
      spy.mockRestore();
    }
    expect(first.records.map((r) => r.timestamp)).toEqual(stamps);
    expect(second.records.map((r) => r.timestamp)).toEqual(stamps);
  });

  it('redacts secrets wherever they sit in a record', () => {
    const { logger, records } = createMemoryLogger();
    logger.info({ password: 'hunter22', body: { token: 'abc', code: '123456' }, req: { headers: { cookie: 'x' } } }, 'secrets');
    const line = JSON.stringify(records[0]);
    for (const secret of ['hunter22', '"abc"', '123456']) expect(line).not.toContain(secret);
    expect(records[0].password).toBe('[redacted]');
  });

  it("keeps an error's code readable, while a one-time code stays redacted", () => {
    const { logger, records } = createMemoryLogger();
    logger.error({ code: 'service_unavailable', err: { code: 'ECONNREFUSED' }, payload: { code: '654321' } }, 'failed');
    expect(records[0].code).toBe('service_unavailable');
    expect(JSON.stringify(records[0])).not.toContain('654321');
  });
});

describe('request context', () => {
  it('when a record is written inside withRequestId, also after an await, then it names the request; outside, it does not', async () => {
    const { logger, records } = createMemoryLogger('info');

    await withRequestId('req-123', async () => {
      logger.info('before');
      await new Promise((r) => setTimeout(r, 1));
      logger.info({ user_id: 'u1' }, 'after');
    });
    logger.info('outside');

    expect(records.map((r) => [r.message, r.request_id])).toEqual([
      ['before', 'req-123'],
      ['after', 'req-123'],
      ['outside', undefined],
    ]);
  });

  it('when a record names its own request_id, then that one is kept, once', () => {
    const lines: string[] = [];
    const logger = createLogger({ destination: { write: (line: string) => void lines.push(line) } });

    withRequestId('from-context', () => logger.info({ request_id: 'explicit' }, 'record'));

    expect(lines[0].match(/"request_id"/g)).toHaveLength(1);
    expect(JSON.parse(lines[0]).request_id).toBe('explicit');
  });
});
