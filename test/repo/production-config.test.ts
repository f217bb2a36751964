// Production refuses what is only fit for a laptop, and every refusal names the variable and the
// value it refused, except a secret's.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadAuthConfig, weakenedSettings } from '@acct/auth';
import { loadDesktopConfig } from '@acct/desktop';
import { browserCookieWarnings, loadGatewayConfig } from '@acct/gateway';
import { loadNotifierConfig } from '@acct/notifier';

const authProduction = {
  NODE_ENV: 'production',
  OTP_SECRET: 'a-production-secret-of-enough-length',
  RESET_URL_BASE_ADMIN: 'https://admin.example.com/reset-password',
  RESET_URL_BASE_USER: 'https://app.example.com/reset-password',
  EMAIL_LINK_URL_BASE: 'https://app.example.com/account/email',
  MFA_ENCRYPTION_KEY: '5f'.repeat(32),
  WEBAUTHN_RP_ID: 'example.com',
};

describe('production configuration', () => {
  it('starts auth with its own OTP secret and public reset pages (the control)', () => {
    expect(loadAuthConfig(authProduction)).toMatchObject({ NODE_ENV: 'production', links: { resetUrlBase: { user: 'https://app.example.com/reset-password' } } });
  });

  it.each([
    ['no OTP_SECRET', { OTP_SECRET: undefined }, /^Invalid configuration: OTP_SECRET: required in production/],
    ['an empty OTP_SECRET', { OTP_SECRET: '' }, /^Invalid configuration: OTP_SECRET: required in production/],
    ['no RESET_URL_BASE_USER', { RESET_URL_BASE_USER: undefined }, /^Invalid configuration: RESET_URL_BASE_USER: required in production/],
    ['a reset page on localhost', { RESET_URL_BASE_USER: 'http://localhost:3000/reset-password' }, /^Invalid configuration: RESET_URL_BASE_USER: points at this machine.*\(got "http:\/\/localhost:3000\/reset-password"\)$/],
    ['a reset page on a loopback address', { RESET_URL_BASE_ADMIN: 'http://127.0.0.1:8080/admin/reset-password' }, /^Invalid configuration: RESET_URL_BASE_ADMIN: points at this machine/],
  ])('refuses auth with %s', (_label, change, message) => {
    expect(() => loadAuthConfig({ ...authProduction, ...change })).toThrow(message);
  });

  it.each([
    ['the built-in OTP secret', { OTP_SECRET: 'development-only-otp-secret' }, /^Invalid configuration: OTP_SECRET: a published value/],
    ["the docs' placeholder", { OTP_SECRET: '<openssl rand -hex 32>' }, /^Invalid configuration: OTP_SECRET: a published value/],
    ['an OTP secret under 32 bytes', { OTP_SECRET: 'only-thirty-one-bytes-long-here' }, /^Invalid configuration: OTP_SECRET: shorter than 32 bytes/],
    ['a plain-http reset page', { RESET_URL_BASE_USER: 'http://app.example.com/reset-password' }, /^Invalid configuration: RESET_URL_BASE_USER: must be an https: page/],
    ['an email link page on localhost', { EMAIL_LINK_URL_BASE: 'http://localhost:3000/account/email' }, /^Invalid configuration: EMAIL_LINK_URL_BASE: points at this machine; in production it must be the public email page/],
    ['no MFA_ENCRYPTION_KEY', { MFA_ENCRYPTION_KEY: undefined }, /^Invalid configuration: MFA_ENCRYPTION_KEY: required in production/],
    ['the published development MFA key', { MFA_ENCRYPTION_KEY: '0'.repeat(64) }, /^Invalid configuration: MFA_ENCRYPTION_KEY: the published development key/],
    ['a passkey relying party on localhost', { WEBAUTHN_RP_ID: 'localhost' }, /^Invalid configuration: WEBAUTHN_RP_ID: names this machine/],
    ['a plain-http passkey origin', { WEBAUTHN_ORIGINS: 'https://app.example.com,http://admin.example.com' }, /^Invalid configuration: WEBAUTHN_ORIGINS: .*refused: http:\/\/admin\.example\.com/],
    ['the OpenID provider on without its issuer', { OPENID_PROVIDER: 'true' }, /^Invalid configuration: OPENID_ISSUER: required in production with OPENID_PROVIDER/],
    ['the OpenID provider on a plain-http issuer', { OPENID_PROVIDER: 'true', OPENID_ISSUER: 'http://api.example.com' }, /^Invalid configuration: OPENID_ISSUER: must be the public https origin/],
  ])('refuses auth in production with %s', (_label, change, message) => {
    expect(() => loadAuthConfig({ ...authProduction, ...change })).toThrow(message);
    expect(() => loadAuthConfig({ ...authProduction, ...change, NODE_ENV: 'development' })).not.toThrow();
  });

  it('takes the OpenID provider on a public https issuer in production, its apps as given (the control)', () => {
    const apps = [{ id: 'desktop', name: 'Desktop', firstParty: true, native: true, redirectUris: ['http://127.0.0.1/callback'] }];
    expect(loadAuthConfig({ ...authProduction, OPENID_PROVIDER: 'true', OPENID_ISSUER: 'https://api.example.com/', OPENID_CLIENTS: JSON.stringify(apps) }).openid).toMatchObject({
      enabled: true,
      issuer: 'https://api.example.com',
      clients: [{ id: 'desktop', kind: 'user', firstParty: true, native: true, scopes: ['openid', 'profile', 'email', 'offline_access'] }],
      cookieKeys: [],
    });
  });

  it.each([
    ['apps that are not JSON', { OPENID_CLIENTS: '[{' }, /OPENID_CLIENTS: expected a JSON array/],
    ['an app twice', { OPENID_CLIENTS: JSON.stringify([{ id: 'a', name: 'A', redirectUris: ['https://a.example/cb'] }, { id: 'a', name: 'A', redirectUris: ['https://a.example/cb'] }]) }, /OPENID_CLIENTS: app id "a" is given twice/],
    ['an app without a redirect URI', { OPENID_CLIENTS: JSON.stringify([{ id: 'a', name: 'A', redirectUris: [] }]) }, /OPENID_CLIENTS: app 0.redirectUris/],
    ['a scope no app may have', { OPENID_CLIENTS: JSON.stringify([{ id: 'a', name: 'A', redirectUris: ['https://a.example/cb'], scopes: ['admin'] }]) }, /OPENID_CLIENTS: app 0.scopes.0/],
    ['a secret of an app not listed', { OPENID_CLIENT_SECRETS: JSON.stringify({ b: 's'.repeat(32) }) }, /OPENID_CLIENT_SECRETS: secrets for apps not in OPENID_CLIENTS: b/],
    ['a short app secret', { OPENID_CLIENTS: JSON.stringify([{ id: 'a', name: 'A', redirectUris: ['https://a.example/cb'] }]), OPENID_CLIENT_SECRETS: JSON.stringify({ a: 'short' }) }, /OPENID_CLIENT_SECRETS: expected a JSON object of app id to a secret of at least 32 characters/],
    ['a secret for a native app', { OPENID_CLIENTS: JSON.stringify([{ id: 'a', name: 'A', native: true, redirectUris: ['http://127.0.0.1/cb'] }]), OPENID_CLIENT_SECRETS: JSON.stringify({ a: 's'.repeat(32) }) }, /OPENID_CLIENT_SECRETS: a native app keeps no secret/],
    ['a short cookie key', { OPENID_COOKIE_KEYS: 'short' }, /OPENID_COOKIE_KEYS: each key must be at least 32 characters/],
    ['a back-channel logout URI that is no URL', { OPENID_CLIENTS: JSON.stringify([{ id: 'a', name: 'A', redirectUris: ['https://a.example/cb'], backchannelLogoutUri: 'not a url' }]) }, /OPENID_CLIENTS: app 0.backchannelLogoutUri/],
    ['a resource server for an app not listed', { OPENID_RESOURCES: JSON.stringify([{ indicator: 'https://r.example', name: 'R', scopes: ['r.read'], apps: ['b'] }]) }, /OPENID_RESOURCES: https:\/\/r.example: apps not in OPENID_CLIENTS: b/],
    ['a resource server with a fragment', { OPENID_CLIENTS: JSON.stringify([{ id: 'a', name: 'A', redirectUris: ['https://a.example/cb'] }]), OPENID_RESOURCES: JSON.stringify([{ indicator: 'https://r.example/#x', name: 'R', scopes: ['r.read'], apps: ['a'] }]) }, /an absolute URI with no fragment/],
    ['a resource server taking the provider\'s scopes', { OPENID_CLIENTS: JSON.stringify([{ id: 'a', name: 'A', redirectUris: ['https://a.example/cb'] }]), OPENID_RESOURCES: JSON.stringify([{ indicator: 'https://r.example', name: 'R', scopes: ['email'], apps: ['a'] }]) }, /scopes taken by the provider: email/],
    ['the product API as another resource server', { OPENID_CLIENTS: JSON.stringify([{ id: 'a', name: 'A', redirectUris: ['https://a.example/cb'] }]), OPENID_ISSUER: 'https://api.example.com', OPENID_RESOURCES: JSON.stringify([{ indicator: 'https://api.example.com/api', name: 'R', scopes: ['r.read'], apps: ['a'] }]) }, /never the product API's own/],
  ])('refuses the OpenID provider\'s settings anywhere with %s', (_label, change, message) => {
    expect(() => loadAuthConfig({ OPENID_PROVIDER: 'true', ...change })).toThrow(message);
  });

  it('lists every refused variable of a production start at once, the schema\'s and the rules\'', () => {
    let message = '';
    try {
      loadAuthConfig({ NODE_ENV: 'production', BCRYPT_COST: '31', RESET_URL_BASE_ADMIN: 'http://localhost/x' });
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message.split('\n').map((line) => line.split(':')[1].trim())).toEqual(['BCRYPT_COST', 'OTP_SECRET', 'MFA_ENCRYPTION_KEY', 'RESET_URL_BASE_ADMIN', 'RESET_URL_BASE_USER', 'EMAIL_LINK_URL_BASE']);
  });

  it.each([
    ['TRUST_PROXY=true', { TRUST_PROXY: 'true' }, /^Invalid configuration: TRUST_PROXY: true trusts every X-Forwarded-For/],
    ['a plain-http browser origin', { CORS_ORIGINS: 'https://admin.example.com,http://app.example.com' }, /^Invalid configuration: CORS_ORIGINS: .*refused: http:\/\/app\.example\.com/],
    ['a localhost browser origin', { CORS_ORIGINS: 'https://localhost:3000' }, /^Invalid configuration: CORS_ORIGINS: .*refused: https:\/\/localhost:3000/],
  ])('refuses the gateway in production with %s, and not elsewhere', (_label, change, message) => {
    expect(() => loadGatewayConfig({ NODE_ENV: 'production', ...change })).toThrow(message);
    expect(() => loadGatewayConfig({ NODE_ENV: 'development', ...change })).not.toThrow();
    expect(() => loadGatewayConfig({ NODE_ENV: 'production', TRUST_PROXY: '1', CORS_ORIGINS: 'https://admin.example.com' })).not.toThrow();
  });

  it('warns of weakened production settings, one line each, and of none elsewhere', () => {
    const weak = { ADMIN_REGISTRATION_OPEN: 'true', ADMIN_2FA_DEFAULT: 'false', BCRYPT_COST: '8', ACCESS_TOKEN_TTL_SECONDS: '7200', WEBAUTHN_RP_ID: undefined, BREACHED_PASSWORD_CHECK: 'false' };
    expect(weakenedSettings(loadAuthConfig({ ...authProduction, ...weak })).map((w) => w.split(/[= ]/)[0])).toEqual([
      'ADMIN_REGISTRATION_OPEN',
      'ADMIN_2FA_DEFAULT',
      'BCRYPT_COST',
      'BREACHED_PASSWORD_CHECK',
      'WEBAUTHN_RP_ID',
      'ACCESS_TOKEN_TTL_SECONDS',
    ]);
    expect(weakenedSettings(loadAuthConfig(authProduction))).toEqual([]);
    expect(weakenedSettings(loadAuthConfig({ ...weak }))).toEqual([]);
  });

  it('warns at the gateway start of cookies browsers would drop: a plain-http public URL, a listed origin on another site', () => {
    const production = { NODE_ENV: 'production', CORS_ORIGINS: 'https://admin.example.com,https://panel.other.org' };
    const warnings = browserCookieWarnings(loadGatewayConfig({ ...production, PUBLIC_URL: 'http://api.example.com' }));
    expect(warnings).toEqual([expect.stringMatching(/^PUBLIC_URL http:\/\/api\.example\.com is plain http/), expect.stringMatching(/^CORS_ORIGINS https:\/\/panel\.other\.org is not on the API's site/)]);
    expect(browserCookieWarnings(loadGatewayConfig({ ...production, CORS_ORIGINS: 'https://admin.example.com', PUBLIC_URL: 'https://api.example.com' }))).toEqual([]);
    expect(browserCookieWarnings(loadGatewayConfig({ ...production, PUBLIC_URL: 'http://localhost:8080', CORS_ORIGINS: '' }))).toEqual([]);
    expect(browserCookieWarnings(loadGatewayConfig({ CORS_ORIGINS: 'https://panel.other.org', PUBLIC_URL: 'http://api.example.com' }))).toEqual([]);
    // The cookie routes compare the page's scheme too: behind a TLS proxy the gateway must be told it, by PUBLIC_URL or a trusted proxy.
    expect(browserCookieWarnings(loadGatewayConfig({ ...production, CORS_ORIGINS: '' }))).toEqual([expect.stringMatching(/^Neither PUBLIC_URL nor TRUST_PROXY is set/)]);
    expect(browserCookieWarnings(loadGatewayConfig({ ...production, CORS_ORIGINS: '', TRUST_PROXY: '1' }))).toEqual([]);
  });

  it('refuses the notifier without SMTP_URL in production, and not elsewhere', () => {
    expect(() => loadNotifierConfig({ NODE_ENV: 'production' })).toThrow(/^Invalid configuration: SMTP_URL: required in production/);
    expect(loadNotifierConfig({ NODE_ENV: 'production', SMTP_URL: 'smtps://mailer:pw@smtp.example.com' }).SMTP_URL).toMatch(/^smtps:/);
    expect(loadNotifierConfig({ NODE_ENV: 'development' }).SMTP_URL).toBe('');
  });

  it('refuses an MFA_ENCRYPTION_KEY that is not 32 bytes anywhere, never showing it; and gives passkeys to localhost only outside production', () => {
    expect(() => loadAuthConfig({ MFA_ENCRYPTION_KEY: 'hunter2-too-short' })).toThrow(/^Invalid configuration: MFA_ENCRYPTION_KEY: must be 32 bytes.*\(value not shown: a secret\)$/);
    expect(() => loadAuthConfig({ MFA_ENCRYPTION_KEY: 'hunter2-too-short' })).not.toThrow(/hunter2/);
    expect(loadAuthConfig({ MFA_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64') }).mfa.key).toEqual(Buffer.alloc(32, 7));
    expect(loadAuthConfig({}).policy.mfa.webauthn).toMatchObject({ rpId: 'localhost' });
    expect(loadAuthConfig({ ...authProduction, WEBAUTHN_RP_ID: undefined }).policy.mfa.webauthn).toBeUndefined();
    expect(loadAuthConfig(authProduction).policy.mfa.webauthn).toEqual({ rpId: 'example.com', rpName: 'Account Service', origins: ['https://example.com'] });
    // The common-password screen: on in production unless turned off, off elsewhere unless turned on.
    expect([loadAuthConfig(authProduction).passwords.breachedCheck, loadAuthConfig({}).passwords.breachedCheck, loadAuthConfig({ BREACHED_PASSWORD_CHECK: 'true' }).passwords.breachedCheck]).toEqual([true, false, true]);
  });

  describe('a secret mounted as a file (NAME_FILE) meets every rule the inline value meets', () => {
    let dir: string;
    beforeAll(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'secret-files-'))));
    afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
    const file = (name: string, content: string) => {
      const at = path.join(dir, name);
      fs.writeFileSync(at, content);
      return at;
    };
    const withKeyFile = (content: string, extra: Record<string, string | undefined> = {}) => ({ ...authProduction, MFA_ENCRYPTION_KEY: undefined, MFA_ENCRYPTION_KEY_FILE: file('mfa-key', content), ...extra });

    it('refuses the published development key in production, naming the file variable and never the key', () => {
      expect(() => loadAuthConfig(withKeyFile(`${'0'.repeat(64)}\n`))).toThrow(/^Invalid configuration: MFA_ENCRYPTION_KEY_FILE: the published development key/);
      expect(() => loadAuthConfig(withKeyFile(`${'0'.repeat(64)}\n`, { NODE_ENV: 'development' }))).not.toThrow();
    });

    it('refuses a key file that is not 32 bytes at load, in any environment, without showing it', () => {
      expect(() => loadAuthConfig(withKeyFile('hunter2-not-a-key\n'))).toThrow(/^Invalid configuration: MFA_ENCRYPTION_KEY_FILE: must be 32 bytes/);
      expect(() => loadAuthConfig(withKeyFile('hunter2-not-a-key\n', { NODE_ENV: 'development' }))).toThrow(/MFA_ENCRYPTION_KEY_FILE: must be 32 bytes/);
      expect(() => loadAuthConfig(withKeyFile('hunter2-not-a-key\n'))).not.toThrow(/hunter2/);
    });

    it('accepts a proper key from a file (the control), and names an unreadable file once', () => {
      expect(loadAuthConfig(withKeyFile(`${'5f'.repeat(32)}\n`)).mfa.key.toString('hex')).toBe('5f'.repeat(32));
      expect(() => loadAuthConfig({ ...authProduction, MFA_ENCRYPTION_KEY: undefined, MFA_ENCRYPTION_KEY_FILE: path.join(dir, 'missing') })).toThrow(/^Invalid configuration: MFA_ENCRYPTION_KEY_FILE: cannot read/);
    });
  });

  it('caps BCRYPT_COST, showing the value it refused', () => {
    expect(() => loadAuthConfig({ BCRYPT_COST: '31' })).toThrow(/^Invalid configuration: BCRYPT_COST: .*\(got "31"\)$/);
    expect(loadAuthConfig({ BCRYPT_COST: '15' }).passwords.cost).toBe(15);
  });

  it("shows a refused value but never a secret's, nor a URL's password", () => {
    expect(() => loadAuthConfig({ OTP_SECRET: 'hunter2-short' })).toThrow(/^Invalid configuration: OTP_SECRET: .*\(value not shown: a secret\)$/);
    expect(() => loadAuthConfig({ OTP_SECRET: 'hunter2-short' })).not.toThrow(/hunter2/);
    let message = '';
    try {
      loadGatewayConfig({ AUTH_URL: 'http://svc:hunter2@auth host:3001' });
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toMatch(/^Invalid configuration: AUTH_URL: .*\(got "http:\/\/svc:\*\*\*@auth host:3001"\)$/);
    expect(() => loadDesktopConfig({ SYNC_PAGE_SIZE: 'lots' })).toThrow(/SYNC_PAGE_SIZE: .*\(got "lots"\)$/);
  });
});
