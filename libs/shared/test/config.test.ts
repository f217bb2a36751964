import { z } from 'zod';
import { ConfigError, env, loadConfig } from '@acct/shared';

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
