import { z } from 'zod';
import { ConfigError, configError, env, loadConfig, redactUrl, splitList } from '@acct/shared';

describe('loadConfig', () => {
  const schema = z.object({ PORT: env.port(8080), ENABLED: env.bool(false), NAME: env.string('svc') });

  it('when variables are absent, then every default applies', () => {
    expect(loadConfig(schema, {})).toEqual({ PORT: 8080, ENABLED: false, NAME: 'svc' });
  });

  it('when values are given as strings, then they are coerced to their types', () => {
    expect(loadConfig(schema, { PORT: '9000', ENABLED: 'true' })).toMatchObject({ PORT: 9000, ENABLED: true });
  });

  it('when a value is wrong, then it fails with one line naming the variable', () => {
    let error: unknown;
    try {
      loadConfig(schema, { PORT: 'eighty' });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toMatch(/^Invalid configuration: PORT: /);
    expect((error as Error).message).not.toContain('\n');
  });
});

describe('one rule for a URL in a log line', () => {
  it.each([
    ['amqp://guest:hunter2@rabbitmq:5672', 'amqp://guest:***@rabbitmq:5672'],
    ['mongodb://u:hunter2@db one:27017', 'mongodb://u:***@db one:27017'],
    ['redis://127.0.0.1:6379', 'redis://127.0.0.1:6379'],
  ])('redactUrl(%j) and the config error both show %j', (url, shown) => {
    expect(redactUrl(url)).toBe(shown);
    expect(configError('SOME_URL', 'bad', url).message).toContain(JSON.stringify(shown));
  });

  it('splits list variables one way: trimmed, empty entries dropped', () => {
    expect(splitList(' a, ,b ,')).toEqual(['a', 'b']);
  });
});
