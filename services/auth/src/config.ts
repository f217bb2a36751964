// Auth configuration: stores, token keys and lifetimes, password cost, 2FA, reset links and rate limits.
import { z } from 'zod';
import { REVOCATION_CLOCK_SKEW_MS, accessTokenVerifyEnv, configFragments, env, isLocalUrl, isProduction, loadConfig, readSecrets, splitList, type ConfigRule } from '@acct/shared';

const DAY = 86_400;

export const authSchema = z.object({
  ...configFragments.service({ host: '127.0.0.1', healthPort: 9081 }),
  PORT: env.port(3001),
  ...configFragments.mongo('auth'),
  ...configFragments.redis('auth:'),
  ...configFragments.revocations(),
  ...configFragments.events(),
  ...configFragments.outbox(),
  ...configFragments.body(),
  ...env.secret('JWT_PRIVATE_KEY'),
  JWT_ISSUER: accessTokenVerifyEnv.JWT_ISSUER,
  JWT_AUDIENCE: accessTokenVerifyEnv.JWT_AUDIENCE,
  ACCESS_TOKEN_TTL_SECONDS: env.int(900, 30),
  REFRESH_IDLE_TTL_SECONDS: env.int(7 * DAY, 60),
  REFRESH_GRACE_SECONDS: env.int(10, 0),
  SESSION_MAX_AGE_USER_SECONDS: env.int(30 * DAY, 60),
  SESSION_MAX_AGE_ADMIN_SECONDS: env.int(12 * 3600, 60),
  /** Live sessions one account may have; opening one more ends its oldest. */
  SESSION_MAX_PER_ACCOUNT: env.int(10, 1),
  /** Replicas that must hold a session write before it is answered (Redis WAIT): 1 on Sentinel or Cluster, so a failover loses no session; 0 waits for none. */
  REDIS_WAIT_REPLICAS: env.int(0, 0),
  /** How long a session write waits for those replicas; past it the write is answered anyway. */
  REDIS_WAIT_TIMEOUT_MS: env.int(500, 1),
  /** At most 15: each step doubles a hash's time, and 16 takes seconds a login, on any CPU of today. */
  BCRYPT_COST: z.coerce.number().int().min(4).max(15).default(12),
  /** bcrypt hashes at once per replica; 0 means one per core. */
  BCRYPT_CONCURRENCY: env.int(0, 0),
  /** Hashes and compares that may wait for a slot; one more is answered 503 with Retry-After. */
  BCRYPT_QUEUE_MAX: env.int(64, 1),
  /** How long one may wait for a slot; past it (under the gateway's UPSTREAM_TIMEOUT_MS) it is dropped with a 503. */
  BCRYPT_QUEUE_WAIT_MS: env.int(5_000, 10),
  /** Whether new admins get a second factor: `auto` means on in production, off elsewhere. */
  ADMIN_2FA_DEFAULT: z.enum(['auto', 'true', 'false']).default('auto'),
  ADMIN_REGISTRATION_OPEN: env.bool(false),
  /** Required in production; elsewhere a built-in development secret stands in. */
  OTP_SECRET: z.string().min(16).optional(),
  OTP_TTL_SECONDS: env.int(300, 1),
  OTP_MAX_ATTEMPTS: env.int(5, 1),
  RESET_TOKEN_TTL_SECONDS: env.int(1800, 60),
  /** Required in production; elsewhere the gateway's own page on localhost:8080 (the hosted pages). */
  RESET_URL_BASE_ADMIN: z.string().url().optional(),
  RESET_URL_BASE_USER: z.string().url().optional(),
  RATE_LOGIN_IP_PER_MINUTE: env.int(30, 1),
  /** Failed logins for one account from one address in the window, before that address backs off. */
  RATE_LOGIN_FAILURES_PER_ACCOUNT_IP: env.int(5, 1),
  /** Failed logins for one account from all addresses together in the window (NIST 800-63B: at most 100). */
  RATE_LOGIN_FAILURES_PER_ACCOUNT: env.int(100, 1),
  RATE_LOGIN_FAILURE_WINDOW_SECONDS: env.int(900, 1),
  RATE_REGISTER_IP_PER_HOUR: env.int(20, 1),
  RATE_FORGOT_IP_PER_HOUR: env.int(20, 1),
  /** forgot-password requests for one address from one client address. */
  RATE_FORGOT_EMAIL_IP_PER_HOUR: env.int(3, 1),
  /** Reset mails to one address, whoever asks; past it the answer is the same and no mail goes out. */
  RATE_FORGOT_EMAIL_PER_HOUR: env.int(10, 1),
  RATE_RESET_IP_PER_HOUR: env.int(20, 1),
  RATE_OTP_IP_PER_MINUTE: env.int(30, 1),
  /** Uses of verification, email-change and undo links from one client address. */
  RATE_EMAIL_LINK_IP_PER_HOUR: env.int(20, 1),
  /** `off`: addresses are never proven (the contract's answers exactly); `soft`: users carry `emailVerified` and get a link; `required`: an unverified user cannot sign in. */
  EMAIL_VERIFICATION: z.enum(['off', 'soft', 'required']).default('off'),
  /** The page that takes the links of verification, email change and its undo (`?action=…&token=…`). Required in production. */
  EMAIL_LINK_URL_BASE: z.string().url().optional(),
  /** How long a verification or an email-change confirmation link works. */
  EMAIL_LINK_TTL_SECONDS: env.int(86_400, 60),
  /** How long the old address may undo an email change. */
  EMAIL_CHANGE_UNDO_SECONDS: env.int(7 * DAY, 60),
  /** How long the activity history (sign-ins, security changes, admin acts) is kept. */
  ACTIVITY_RETENTION_DAYS: env.int(180, 1),
  /** The most activity entries one account keeps (the oldest go first). */
  ACTIVITY_MAX_PER_ACCOUNT: env.int(1_000, 10),
  /** Desktop's internal address: a user's export asks it for their devices and sync data. */
  DESKTOP_URL: env.url('http://127.0.0.1:3002'),
  /** Whether new passwords are screened against the bundled list of common ones: `auto` means on in production, off elsewhere. */
  BREACHED_PASSWORD_CHECK: z.enum(['auto', 'true', 'false']).default('auto'),
  /** AES-256-GCM key of stored authenticator secrets: 32 bytes as 64 hex digits or base64. Required in production. */
  ...env.secret('MFA_ENCRYPTION_KEY'),
  /** The issuer an authenticator app shows beside the account. */
  TOTP_ISSUER: env.string('Account Service'),
  /** The passkeys' relying party: the site's registrable domain. Unset in production: passkeys are off. */
  WEBAUTHN_RP_ID: z.string().min(1).optional(),
  WEBAUTHN_RP_NAME: env.string('Account Service'),
  /** Pages allowed to run a passkey ceremony (exact origins); by default the RP id's https origin, or localhost's dev ports. */
  WEBAUTHN_ORIGINS: env.list([], { test: (o) => /^https?:\/\/[^/\s*]+$/.test(o), expected: 'origins such as https://app.example.com' }),
  /** How long a password or second-factor proof lets a session add or remove factors. */
  STEP_UP_SECONDS: env.int(300, 30),
  /**
   * Identity providers users may sign in with (OpenID Connect), as a JSON array of
   * `{"id","issuer","clientId","name"?,"scopes"?}`; empty: none. Secrets go in OIDC_CLIENT_SECRETS.
   */
  OIDC_PROVIDERS: z
    .string()
    .optional()
    .transform((v, ctx) => parseProviders(v, ctx)),
  /** The providers' client secrets, as a JSON object of provider id to secret; a provider without one is a public client (PKCE alone). */
  ...env.secret('OIDC_CLIENT_SECRETS'),
  /**
   * Providers admins may sign in with too (ids from OIDC_PROVIDERS, comma-separated; empty: none).
   * An admin signs in only through an identity linked while signed in, and always answers a second step.
   */
  OIDC_ADMIN_PROVIDERS: env.list([], { test: (id) => /^[a-z0-9][a-z0-9-]{0,31}$/.test(id), expected: 'provider ids from OIDC_PROVIDERS' }),
  /** The public origin (and path prefix) the browser reaches the API at: callbacks are `<base>/api/auth/<user|admin>/oidc/<id>/callback`. Required in production with providers. */
  OIDC_REDIRECT_URL_BASE: z.string().url().optional(),
  /** Where a sign-in with a provider may send the browser back (`returnTo`: one of these, or a path under one); the first is the default. Required in production with providers. */
  OIDC_APP_URLS: env.list([], { test: (u) => /^https?:\/\/[^\s*]+$/.test(u), expected: 'app URLs such as https://app.example.com/signed-in' }),
  /** How long a started sign-in with a provider may take to come back. */
  OIDC_FLOW_TTL_SECONDS: env.int(600, 30),
  /** How often queued forgot-password requests are looked up and answered by mail (with ±50% jitter). */
  RESET_REQUEST_POLL_MS: env.int(1000, 10),
});

type AuthVariables = z.infer<typeof authSchema>;

/** OTP secrets anyone can read: the built-in one and the placeholders of this project's docs. */
const PUBLISHED_OTP_SECRETS = new Set(['development-only-otp-secret', '<openssl rand -hex 32>', 'change-me', 'changeme', 'secret']);

/**
 * Production refuses what is only fit for a laptop: no OTP secret of its own (the built-in or a
 * published one, or one under 32 bytes), and reset links that are not public https pages.
 */
const productionRules: ConfigRule = (given) => {
  if (!isProduction(given)) return [];
  const refused: Array<[string, string]> = [];
  const secret = given.OTP_SECRET;
  if (!secret) refused.push(['OTP_SECRET', 'required in production (a random secret of 32 bytes or more, the same on every replica)']);
  else if (PUBLISHED_OTP_SECRETS.has(secret.trim())) refused.push(['OTP_SECRET', 'a published value; in production use a random secret of 32 bytes or more (openssl rand -hex 32)']);
  else if (Buffer.byteLength(secret) < 32) refused.push(['OTP_SECRET', 'shorter than 32 bytes; in production use a random secret of 32 bytes or more (openssl rand -hex 32)']);
  const mfaKey = given.MFA_ENCRYPTION_KEY;
  if (!mfaKey) refused.push(['MFA_ENCRYPTION_KEY', 'required in production (32 random bytes: openssl rand -hex 32), the same on every replica; it encrypts authenticator secrets']);
  else if (mfaKey && mfaKey.trim() === DEVELOPMENT_MFA_KEY) refused.push(['MFA_ENCRYPTION_KEY', 'the published development key; in production use openssl rand -hex 32']);
  const rpId = given.WEBAUTHN_RP_ID;
  if (rpId && isLocalHost(rpId)) refused.push(['WEBAUTHN_RP_ID', 'names this machine; in production it is the public site passkeys belong to (example.com)']);
  const localOrigins = splitList(given.WEBAUTHN_ORIGINS ?? '').filter((o) => isLocalUrl(o) || !/^https:\/\//i.test(o));
  if (localOrigins.length) refused.push(['WEBAUTHN_ORIGINS', `in production every origin must be https and public (refused: ${localOrigins.join(', ')})`]);
  if (!['', '[]'].includes((given.OIDC_PROVIDERS ?? '').replace(/\s/g, ''))) {
    const base = given.OIDC_REDIRECT_URL_BASE;
    if (!base) refused.push(['OIDC_REDIRECT_URL_BASE', 'required in production with identity providers: the public https origin of the API']);
    else if (isLocalUrl(base) || !/^https:\/\//i.test(base)) refused.push(['OIDC_REDIRECT_URL_BASE', 'must be the public https origin of the API in production']);
    const apps = splitList(given.OIDC_APP_URLS ?? '');
    if (!apps.length) refused.push(['OIDC_APP_URLS', 'required in production with identity providers: the app pages a sign-in may return to']);
    const plain = apps.filter((u) => isLocalUrl(u) || !/^https:\/\//i.test(u));
    if (plain.length) refused.push(['OIDC_APP_URLS', `in production every app URL must be https and public (refused: ${plain.join(', ')})`]);
  }
  const linkPages: Array<[string, string]> = [
    ['RESET_URL_BASE_ADMIN', 'reset'],
    ['RESET_URL_BASE_USER', 'reset'],
    ['EMAIL_LINK_URL_BASE', 'email'],
  ];
  for (const [name, link] of linkPages) {
    const url = given[name];
    if (!url) refused.push([name, `required in production: the public page that takes a ${link} link`]);
    else if (isLocalUrl(url)) refused.push([name, `points at this machine; in production it must be the public ${link} page`]);
    else if (!/^https:\/\//i.test(url)) refused.push([name, `must be an https: page in production (the link carries a ${link} token)`]);
  }
  return refused;
};

/** Settings production accepts but that weaken it: said at start, one warning each. */
export function weakenedSettings(config: AuthConfig): string[] {
  if (config.NODE_ENV !== 'production') return [];
  const weak: string[] = [];
  if (config.ADMIN_REGISTRATION_OPEN) weak.push('ADMIN_REGISTRATION_OPEN=true: anyone can register an admin');
  if (config.ADMIN_2FA_DEFAULT === 'false') weak.push('ADMIN_2FA_DEFAULT=false: new admins sign in without a second factor');
  if (config.BCRYPT_COST < 10) weak.push(`BCRYPT_COST=${config.BCRYPT_COST}: under 10, stolen hashes are cheap to guess`);
  if (config.BREACHED_PASSWORD_CHECK === 'false') weak.push('BREACHED_PASSWORD_CHECK=false: new passwords are not screened against commonly breached ones');
  if (!config.WEBAUTHN_RP_ID) weak.push('WEBAUTHN_RP_ID unset: passkeys are off (set it to the site passkeys belong to)');
  if (config.ACCESS_TOKEN_TTL_SECONDS > 3600) weak.push(`ACCESS_TOKEN_TTL_SECONDS=${config.ACCESS_TOKEN_TTL_SECONDS}: over an hour, a leaked access token stays useful long`);
  return weak;
}

/** The flat variables grouped by concern; the composition root hands each section to its store whole. */
function sections(config: AuthVariables & { JWT_PRIVATE_KEY?: string; MFA_ENCRYPTION_KEY?: string; OIDC_CLIENT_SECRETS?: string }, ctx: z.RefinementCtx) {
  const mfa = mfaSection(config);
  return {
    ...config,
    identityProviders: identityProviderSection(config, ctx),
    sessions: {
      idleTtlMs: config.REFRESH_IDLE_TTL_SECONDS * 1000,
      graceMs: config.REFRESH_GRACE_SECONDS * 1000,
      maxAgeMs: { user: config.SESSION_MAX_AGE_USER_SECONDS * 1000, admin: config.SESSION_MAX_AGE_ADMIN_SECONDS * 1000 },
      maxPerAccount: config.SESSION_MAX_PER_ACCOUNT,
      revocationRetentionMs: config.ACCESS_TOKEN_TTL_SECONDS * 1000 + REVOCATION_CLOCK_SKEW_MS,
      replicaAck: { replicas: config.REDIS_WAIT_REPLICAS, timeoutMs: config.REDIS_WAIT_TIMEOUT_MS },
    },
    rateLimits: {
      loginIpPerMinute: config.RATE_LOGIN_IP_PER_MINUTE,
      registerIpPerHour: config.RATE_REGISTER_IP_PER_HOUR,
      forgotIpPerHour: config.RATE_FORGOT_IP_PER_HOUR,
      forgotEmailIpPerHour: config.RATE_FORGOT_EMAIL_IP_PER_HOUR,
      forgotEmailPerHour: config.RATE_FORGOT_EMAIL_PER_HOUR,
      resetIpPerHour: config.RATE_RESET_IP_PER_HOUR,
      otpIpPerMinute: config.RATE_OTP_IP_PER_MINUTE,
      emailLinkIpPerHour: config.RATE_EMAIL_LINK_IP_PER_HOUR,
    },
    loginAttempts: {
      perAccountAndIp: config.RATE_LOGIN_FAILURES_PER_ACCOUNT_IP,
      perAccount: config.RATE_LOGIN_FAILURES_PER_ACCOUNT,
      windowMs: config.RATE_LOGIN_FAILURE_WINDOW_SECONDS * 1000,
    },
    otp: { secret: config.OTP_SECRET ?? 'development-only-otp-secret', ttlMs: config.OTP_TTL_SECONDS * 1000, maxAttempts: config.OTP_MAX_ATTEMPTS },
    mfa,
    breachedPasswordCheck: config.BREACHED_PASSWORD_CHECK === 'auto' ? config.NODE_ENV === 'production' : config.BREACHED_PASSWORD_CHECK === 'true',
    passwords: {
      cost: config.BCRYPT_COST,
      concurrency: config.BCRYPT_CONCURRENCY || undefined,
      queue: { maxQueue: config.BCRYPT_QUEUE_MAX, maxWaitMs: config.BCRYPT_QUEUE_WAIT_MS },
    },
    policy: {
      accessTokenTtlSeconds: config.ACCESS_TOKEN_TTL_SECONDS,
      otpTtlSeconds: config.OTP_TTL_SECONDS,
      resetTokenTtlSeconds: config.RESET_TOKEN_TTL_SECONDS,
      resetUrlBase: {
        admin: config.RESET_URL_BASE_ADMIN ?? 'http://localhost:8080/admin/reset-password',
        user: config.RESET_URL_BASE_USER ?? 'http://localhost:8080/reset-password',
      },
      adminRegistrationOpen: config.ADMIN_REGISTRATION_OPEN,
      adminTwoFactor: config.ADMIN_2FA_DEFAULT === 'auto' ? config.NODE_ENV === 'production' : config.ADMIN_2FA_DEFAULT === 'true',
      mfa: { totpIssuer: config.TOTP_ISSUER, webauthn: mfa.webauthn },
      emailVerification: config.EMAIL_VERIFICATION,
      identity: {
        appUrls: [...(config.OIDC_APP_URLS.length ? config.OIDC_APP_URLS : DEVELOPMENT_APP_URLS), ...hostedSignInPages(config)],
        flowTtlMs: config.OIDC_FLOW_TTL_SECONDS * 1000,
        adminProviders: config.OIDC_ADMIN_PROVIDERS,
      },
      emailLinks: {
        urlBase: config.EMAIL_LINK_URL_BASE ?? 'http://localhost:8080/account/email',
        ttlSeconds: config.EMAIL_LINK_TTL_SECONDS,
        undoSeconds: config.EMAIL_CHANGE_UNDO_SECONDS,
      },
    },
  };
}

/** The second factors' settings: the secrets' key, the authenticator issuer, the passkeys' relying party (undefined: passkeys off). */
function mfaSection(config: AuthVariables & { MFA_ENCRYPTION_KEY?: string }) {
  const production = config.NODE_ENV === 'production';
  const rpId = config.WEBAUTHN_RP_ID ?? (production ? undefined : 'localhost');
  const origins = config.WEBAUTHN_ORIGINS.length
    ? config.WEBAUTHN_ORIGINS
    : rpId === 'localhost'
      ? ['http://localhost:3000', 'http://localhost:5173', 'http://localhost:8080']
      : rpId
        ? [`https://${rpId}`]
        : [];
  return {
    key: config.MFA_ENCRYPTION_KEY ?? DEVELOPMENT_MFA_KEY,
    totpIssuer: config.TOTP_ISSUER,
    stepUpMs: config.STEP_UP_SECONDS * 1000,
    webauthn: rpId ? { rpId, rpName: config.WEBAUTHN_RP_NAME, origins } : undefined,
  };
}

/** One identity provider as OIDC_PROVIDERS gives it. */
const providerSchema = z
  .object({
    id: z.string().regex(/^[a-z0-9][a-z0-9-]{0,31}$/, 'id: lower-case letters, digits and dashes, at most 32'),
    issuer: z.string().url(),
    clientId: z.string().min(1),
    name: z.string().min(1).max(64).optional(),
    scopes: z.string().min(1).optional(),
  })
  .strict();

export type ProviderEntry = z.infer<typeof providerSchema>;

function parseProviders(value: string | undefined, ctx: z.RefinementCtx): ProviderEntry[] {
  if (value === undefined || value.trim() === '') return [];
  let raw: unknown;
  try {
    raw = JSON.parse(value);
  } catch {
    ctx.addIssue({ code: 'custom', message: 'expected a JSON array of {"id","issuer","clientId","name"?,"scopes"?}' });
    return [];
  }
  const parsed = z.array(providerSchema).safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    ctx.addIssue({ code: 'custom', message: `provider ${issue.path.join('.')}: ${issue.message}` });
    return [];
  }
  const ids = parsed.data.map((p) => p.id);
  const repeated = ids.find((id, i) => ids.indexOf(id) !== i);
  if (repeated) ctx.addIssue({ code: 'custom', message: `provider id "${repeated}" is given twice` });
  return parsed.data;
}

/** The providers with their secrets, the callback base and the app URLs a sign-in may return to. */
function identityProviderSection(config: AuthVariables & { OIDC_CLIENT_SECRETS?: string }, ctx: z.RefinementCtx) {
  let secrets: Record<string, string> = {};
  if (config.OIDC_CLIENT_SECRETS) {
    try {
      secrets = z.record(z.string().min(1)).parse(JSON.parse(config.OIDC_CLIENT_SECRETS));
    } catch {
      ctx.addIssue({ code: 'custom', path: ['OIDC_CLIENT_SECRETS'], message: 'expected a JSON object of provider id to client secret' });
    }
  }
  const unknown = Object.keys(secrets).filter((id) => !config.OIDC_PROVIDERS.some((p) => p.id === id));
  if (unknown.length) ctx.addIssue({ code: 'custom', path: ['OIDC_CLIENT_SECRETS'], message: `secrets for providers not in OIDC_PROVIDERS: ${unknown.join(', ')}` });
  const strangers = config.OIDC_ADMIN_PROVIDERS.filter((id) => !config.OIDC_PROVIDERS.some((p) => p.id === id));
  if (strangers.length) ctx.addIssue({ code: 'custom', path: ['OIDC_ADMIN_PROVIDERS'], message: `providers not in OIDC_PROVIDERS: ${strangers.join(', ')}` });
  const redirectBase = apiOrigin(config);
  return {
    providers: config.OIDC_PROVIDERS.map((p) => ({
      id: p.id,
      name: p.name ?? p.id,
      issuer: p.issuer,
      clientId: p.clientId,
      clientSecret: secrets[p.id],
      scopes: p.scopes ?? 'openid email profile',
      redirectUris: { user: `${redirectBase}/api/auth/user/oidc/${p.id}/callback`, admin: `${redirectBase}/api/auth/admin/oidc/${p.id}/callback` },
    })),
  };
}

/** The API's public origin, where the provider's redirects and the hosted pages are. */
const apiOrigin = (config: { OIDC_REDIRECT_URL_BASE?: string }) => (config.OIDC_REDIRECT_URL_BASE ?? 'http://localhost:8080').replace(/\/+$/, '');

/** The gateway's own pages on the API's origin (sign-in, and the console that links providers): a flow they start may always return to them (after the operator's app URLs, the first of which stays the fallback). */
const hostedSignInPages = (config: { OIDC_REDIRECT_URL_BASE?: string }) => ['/login', '/admin/login', '/account'].map((page) => `${apiOrigin(config)}${page}`);

/** Where a sign-in may return outside production when OIDC_APP_URLS is unset: the usual dev servers. */
const DEVELOPMENT_APP_URLS = ['http://localhost:3000/', 'http://localhost:5173/', 'http://localhost:8080/'];

/** Stands in outside production; production refuses it (it is in this file for anyone to read). */
const DEVELOPMENT_MFA_KEY = '0000000000000000000000000000000000000000000000000000000000000000';

const isLocalHost = (host: string) => isLocalUrl(`http://${host}`);

/** The key as 32 bytes: 64 hex digits or base64 of 32 bytes. */
const mfaKeyRule: ConfigRule = (given) => {
  const key = given.MFA_ENCRYPTION_KEY;
  if (key === undefined || key === '') return [];
  return parseMfaKey(key) ? [] : [['MFA_ENCRYPTION_KEY', 'must be 32 bytes, as 64 hex digits or base64 (openssl rand -hex 32)']];
};

export function parseMfaKey(value: string): Buffer | undefined {
  const text = value.trim();
  if (/^[0-9a-fA-F]{64}$/.test(text)) return Buffer.from(text, 'hex');
  const decoded = Buffer.from(text, 'base64');
  return /^[A-Za-z0-9+/_-]{43}=?$/.test(text) && decoded.length === 32 ? decoded : undefined;
}

const authConfig = authSchema.transform(readSecrets('JWT_PRIVATE_KEY', 'MFA_ENCRYPTION_KEY', 'OIDC_CLIENT_SECRETS')).transform(sections);

export type AuthConfig = z.infer<typeof authConfig>;

/** Parses auth's config, every production refusal listed at once. */
export function loadAuthConfig(source: NodeJS.ProcessEnv = process.env): AuthConfig {
  return loadConfig(authConfig, source, [productionRules, mfaKeyRule]);
}
