// One configuration grammar: a variable that several services read means the same in each of them,
// whether it is empty, malformed or valid.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { variablesOf } from '@acct/shared';
import { authSchema, loadAuthConfig } from '@acct/auth';
import { desktopSchema, loadDesktopConfig } from '@acct/desktop';
import { gatewaySchema, loadGatewayConfig } from '@acct/gateway';
import { loadNotifierConfig, notifierSchema } from '@acct/notifier';

type Loader = (env: NodeJS.ProcessEnv) => Record<string, unknown>;
const services: [string, Loader, string[]][] = [
  ['gateway', loadGatewayConfig, variablesOf(gatewaySchema)],
  ['auth', loadAuthConfig, variablesOf(authSchema)],
  ['notifier', loadNotifierConfig, variablesOf(notifierSchema)],
  ['desktop', loadDesktopConfig, variablesOf(desktopSchema)],
];

const keyDir = fs.mkdtempSync(path.join(os.tmpdir(), 'config-grammar-'));
const keyFile = path.join(keyDir, 'key.pem');
fs.writeFileSync(keyFile, 'a key from a file');
afterAll(() => fs.rmSync(keyDir, { recursive: true, force: true }));

/** Each shared variable: a malformed value (undefined where the variable takes any text) and a valid one with what it parses to. */
const cases: [name: string, malformed: string | undefined, valid: string, parsed: unknown][] = [
  ['NODE_ENV', 'staging', 'test', 'test'],
  ['LOG_LEVEL', 'loud', 'warn', 'warn'],
  ['HOST', undefined, '0.0.0.0', '0.0.0.0'],
  ['PORT', 'eighty', '0', 0],
  ['HEALTH_PORT', '70000', '9999', 9999],
  ['SHUTDOWN_DELAY_MS', 'soon', '250', 250],
  ['SHUTDOWN_TIMEOUT_MS', '5', '2000', 2000],
  ['MONGO_URL', undefined, 'mongodb://db:27017', 'mongodb://db:27017'],
  ['REDIS_URL', undefined, 'redis://cache:6379', 'redis://cache:6379'],
  ['AMQP_URL', undefined, 'amqp://bus:5672', 'amqp://bus:5672'],
  ['EVENTS_EXCHANGE', undefined, 'events.test', 'events.test'],
  ['OUTBOX_POLL_MS', '1', '500', 500],
  ['BODY_LIMIT', 'lots', '1mb', 1024 * 1024],
  ['JWT_ISSUER', undefined, 'issuer.test', 'issuer.test'],
  ['JWT_AUDIENCE', undefined, 'audience.test', 'audience.test'],
  ['JWT_PUBLIC_KEY_FILE', path.join(keyFile, 'missing'), keyFile, undefined],
];

describe('one configuration grammar', () => {
  for (const [name, malformed, valid, parsed] of cases) {
    const readers = services.filter(([, , variables]) => variables.includes(name));

    describe(`${name} (read by ${readers.map(([service]) => service).join(', ')})`, () => {
      it('is read by at least one service', () => {
        expect(readers.length).toBeGreaterThan(0);
      });

      it.each(readers)('when empty, %s treats it as unset', (_service, load) => {
        expect(load({ [name]: '' })).toEqual(load({}));
      });

      if (malformed !== undefined) {
        it.each(readers)('when malformed, %s refuses it with one configError line naming it', (_service, load) => {
          expect(() => load({ [name]: malformed })).toThrow(new RegExp(`^Invalid configuration: ${name}: [^\\n]+$`));
        });
      }

      it.each(readers)('when valid, %s parses it to the same value', (_service, load) => {
        const config = load({ [name]: valid });
        if (name.endsWith('_FILE')) {
          expect(config[name.replace(/_FILE$/, '')]).toBe('a key from a file');
          expect(config).not.toHaveProperty(name);
        } else {
          expect(config[name]).toEqual(parsed);
        }
      });
    });
  }

  describe('a secret given both inline and as a file', () => {
    const pairs: [Loader, string][] = [
      [loadGatewayConfig, 'JWT_PUBLIC_KEY'],
      [loadDesktopConfig, 'JWT_PUBLIC_KEY'],
      [loadAuthConfig, 'JWT_PRIVATE_KEY'],
      [loadNotifierConfig, 'FIREBASE_CREDENTIALS'],
    ];
    it.each(pairs)('is refused, naming the variable and never the value (%#: %s)', (load, name) => {
      let message = '';
      try {
        load({ [name]: 'inline-secret-value', [`${name}_FILE`]: keyFile });
      } catch (err) {
        message = (err as Error).message;
      }
      expect(message).toBe(`Invalid configuration: ${name}: set it or ${name}_FILE, not both (value not shown: a secret)`);
    });
  });

  it('lists every refused variable at once, one per line', () => {
    expect(() => loadDesktopConfig({ PORT: 'eighty', SYNC_PAGE_SIZE: 'lots' })).toThrow(/^Invalid configuration: PORT: .*\nInvalid configuration: SYNC_PAGE_SIZE: .*$/);
  });

  it('parses lists and proxy trust in the schema', () => {
    expect(loadGatewayConfig({ CORS_ORIGINS: ' https://a.example.com, ,https://b.example.com ' }).CORS_ORIGINS).toEqual(['https://a.example.com', 'https://b.example.com']);
    expect(loadGatewayConfig({}).CORS_ORIGINS).toEqual([]);
    expect(() => loadGatewayConfig({ CORS_ORIGINS: 'https://a.example.com/path' })).toThrow(/^Invalid configuration: CORS_ORIGINS: expected origins/);
    expect(loadGatewayConfig({}).TRUST_PROXY).toBe(false);
    expect(loadGatewayConfig({ TRUST_PROXY: '' }).TRUST_PROXY).toBe(false);
    expect(loadGatewayConfig({ TRUST_PROXY: '2' }).TRUST_PROXY).toBe(2);
    expect(loadGatewayConfig({ TRUST_PROXY: 'loopback, 10.0.0.0/8' }).TRUST_PROXY).toEqual(['loopback', '10.0.0.0/8']);
    expect(loadNotifierConfig({ RETRY_DELAYS_MS: '5, 10' }).RETRY_DELAYS_MS).toEqual([5, 10]);
    expect(() => loadNotifierConfig({ RETRY_DELAYS_MS: '5,soon' })).toThrow(/^Invalid configuration: RETRY_DELAYS_MS: expected positive whole milliseconds/);
  });
});
