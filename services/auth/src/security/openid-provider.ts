// This service as an OpenID Connect provider, on oidc-provider (OpenID Certified): the protocol is
// the library's; what is ours is how it meets the rest of auth. Its interaction is the hosted sign-in
// page (entry-points/http/openid-operations.ts); its keys are the access tokens' own (the same keys
// and `kid`s, the key set the gateway publishes, signed in the low-S form the verifiers take); its
// records are in Redis; and each grant becomes a session of the product's (domain/apps), so an app's
// tokens end when its session ends, however it ends. A first-party app's access token for the
// product's API is the product's own access token (same issuer, audience and claims, a `sid` the
// revocation feed ends), so the desktop client signed in through the browser calls the API at once.
// oidc-provider is an ES module, which Node 20.19+ and 24 load with require(): it is loaded only
// when the provider is on, so a deployment without it never loads it.
import { createPrivateKey, createPublicKey, randomBytes, sign as signWith, type KeyObject } from 'node:crypto';
import type http from 'node:http';
import type Provider from 'oidc-provider';
import type { Configuration, KoaContextWithOIDC, ClientMetadata } from 'oidc-provider';
import { InternalHeaders, escapeHtml, pemBlocks, publicJwk, withLowS, type AccountKind, type Logger } from '@acct/shared';
import { DEFAULT_LANGUAGE, type Languages } from '@acct/shared/languages';
import { OPENID_COOKIE_PREFIX, OPENID_PATHS } from '@acct/shared/routes';
import type { Redis } from '@acct/shared/redis';
import type { App, AppDefinition } from '../domain/apps/ports';
import type { OpenIdClientEntry, OpenIdResourceEntry } from '../settings/openid-provider';
import { RedisOpenIdStore } from '../data-access/redis-openid-store';

export interface OpenIdSettings {
  issuer: string;
  clients: OpenIdClientEntry[];
  /** Resource servers other than the product's API (RFC 8707): their tokens name them. */
  resources: OpenIdResourceEntry[];
  cookieKeys: string[];
  /** The product API's token settings: access tokens for it are the product's. */
  productApi: { issuer: string; audience: string; accessTokenTtlSeconds: number };
  /** How long a refresh token lives unused (the sessions' idle lifetime): each rotation starts it again. */
  refreshTtlSeconds: number;
  /** How long a grant can last at most (the sessions' longest absolute lifetime): the app's session ends sooner by itself. */
  grantTtlSeconds: number;
  /** The keys as JWT_PRIVATE_KEY holds them, oldest first: the last signs. */
  privateKeyPem: string;
  /** The languages its own pages speak, in the request's (the gateway's choice). */
  languages: Languages;
}

/** What the provider asks of the rest of auth (the composition root wires them to domain/apps). */
export interface OpenIdHooks {
  /** The account's claims (`profile`, `email`), or undefined when it is gone or disabled. */
  account(kind: AccountKind, id: string): Promise<{ name: string; email: string; emailVerified: boolean; updatedAt?: Date } | undefined>;
  /** Whether the grant and its session still stand. */
  grantLive(grantId: string | undefined): Promise<boolean>;
  /**
   * The session claims of an access token given now; undefined when the grant's session ended.
   * `logout`: the app asked to be told when its session ends, by this `sid` of its ID tokens.
   */
  tokenClaims(grantId: string, logout?: { sid: string }): Promise<{ sid: string; kind: AccountKind; role: string; endsAt: number } | undefined>;
  /** The grant ended at the provider: its session ends too. */
  grantEnded(grantId: string): Promise<void>;
  /** An app admins registered (domain/apps/managed-apps.ts), read at each request that names it; undefined when there is none. */
  managedApp(id: string): Promise<(AppDefinition & { id: string; secrets: Array<{ hash: string; expiresAt?: Date }> }) | undefined>;
  /** Whether `presented` is one of an app's secrets that still works (they are kept hashed, each with the end of its overlap after a rotation). */
  secretMatches(secrets: Array<{ hash: string; expiresAt?: Date }>, presented: string): boolean;
}

/** The scopes an app may be given; `api` is the product API's, given only to its own apps. */
export const OIDC_SCOPES = ['openid', 'profile', 'email', 'offline_access'] as const;
const API_SCOPE = 'api';
/** Where the provider's routes are, under the issuer (the gateway's origin). */
export const OPENID_PREFIX = OPENID_PATHS.prefix;
export const OPENID_ROUTES = {
  authorization: `${OPENID_PREFIX}/auth`,
  token: `${OPENID_PREFIX}/token`,
  userinfo: `${OPENID_PREFIX}/me`,
  revocation: `${OPENID_PREFIX}/token/revocation`,
  introspection: `${OPENID_PREFIX}/token/introspection`,
  end_session: `${OPENID_PREFIX}/session/end`,
  device_authorization: `${OPENID_PREFIX}/device/auth`,
  // Short, for a TV or a CLI to show: the page that takes the code.
  code_verification: OPENID_PATHS.device,
  // The gateway answers it (the key set it publishes): the provider's keys are the same.
  jwks: '/.well-known/jwks.json',
} as const;
/** The interaction the provider sends a browser to: the page's way in (entry-points). */
export const interactionPath = (uid: string) => `${OPENID_PREFIX}/interaction/${uid}`;


type Library = typeof import('oidc-provider');
// A require() at first use, not an import: a deployment with the provider off never loads the library.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const load = (): Library => require('oidc-provider') as Library;

/** A signing key oidc-provider calls out to: ES256 with our key object, in the low-S form (ecdsa-low-s.ts). */
function lowSSigningKey(library: Library, privateKey: KeyObject, kid: string): InstanceType<Library['ExternalSigningKey']> {
  const publicKey = createPublicKey(privateKey);
  const key = new (class extends library.ExternalSigningKey {
    override keyObject(): KeyObject {
      return publicKey;
    }

    override async sign(data: Buffer): Promise<Buffer> {
      const signature = signWith('sha256', data, { key: privateKey, dsaEncoding: 'ieee-p1363' });
      // withLowS works on a compact JWS; the signature alone is its last part.
      return Buffer.from(withLowS(`.${signature.toString('base64url')}`).slice(1), 'base64url');
    }
  })();
  // Setters at run time; the types call them read-only.
  Object.assign(key as object, { kid, alg: 'ES256' });
  return key;
}

/** The app a client is, as the rules read it. */
export function appOf(client: { clientId: string; clientName?: string; [field: string]: unknown }): App {
  return {
    id: client.clientId,
    name: client.clientName ?? client.clientId,
    kind: client['account_kind'] === 'admin' ? 'admin' : 'user',
    firstParty: client['first_party'] === true,
  };
}

/** A resource server an app asked for at its sign-in, that it may have, with the scopes of it asked for. */
export interface AskedResource {
  indicator: string;
  name: string;
  scopes: string[];
}

/**
 * The resource servers (RFC 8707) an authorization request names (`resource`, once or more) that the
 * app may have, each with the scopes of it the request asks for (`scope`); one with none asked is left out.
 */
export function resourcesAsked(resources: OpenIdResourceEntry[], appId: string, resource: unknown, scope: unknown): AskedResource[] {
  const named = new Set((Array.isArray(resource) ? resource : [resource]).filter((r): r is string => typeof r === 'string'));
  const requested = new Set(String(scope ?? '').split(' '));
  return resources
    .filter((r) => named.has(r.indicator) && r.apps.includes(appId))
    .map((r) => ({ indicator: r.indicator, name: r.name, scopes: r.scopes.filter((s) => requested.has(s)) }))
    .filter((r) => r.scopes.length > 0);
}

function clientMetadata(entry: OpenIdClientEntry): ClientMetadata {
  return {
    client_id: entry.id,
    client_name: entry.name,
    ...(entry.secret ? { client_secret: entry.secret, token_endpoint_auth_method: 'client_secret_basic' } : { token_endpoint_auth_method: 'none' }),
    application_type: entry.native ? 'native' : 'web',
    redirect_uris: entry.redirectUris,
    post_logout_redirect_uris: entry.postLogoutRedirectUris,
    // Told of every end of its session, by the `sid` its ID tokens carry.
    ...(entry.backchannelLogoutUri ? { backchannel_logout_uri: entry.backchannelLogoutUri, backchannel_logout_session_required: true } : {}),
    grant_types: [
      ...(entry.redirectUris.length ? ['authorization_code'] : []),
      ...(entry.deviceCode ? ['urn:ietf:params:oauth:grant-type:device_code'] : []),
      ...(entry.scopes.includes('offline_access') ? ['refresh_token'] : []),
    ],
    response_types: entry.redirectUris.length ? ['code'] : [],
    scope: entry.scopes.join(' '),
    id_token_signed_response_alg: 'ES256',
    account_kind: entry.kind,
    first_party: entry.firstParty,
  };
}

/** The provider's own pages in the request's language (the gateway's choice, `x-language`): each text HTML-escaped whole, its values with it. */
interface Words {
  lang: string;
  say(key: string, values?: Record<string, string>): string;
  /** The text unescaped, to be a value of another. */
  plain(key: string): string;
}

function wordsFor(languages: Languages, ctx: { get(name: string): string }): Words {
  const lang = languages.negotiate(undefined, ctx.get(InternalHeaders.language) || DEFAULT_LANGUAGE);
  const t = languages.t(lang, 'pages');
  return { lang, say: (key, values) => escapeHtml(t(`provider.${key}`, values)), plain: (key) => t(`provider.${key}`) };
}

/** The device grant's code, typed on the /device page: 8 letters a person cannot mistake for each other, shown as XXXX-XXXX. */
const deviceCodePage = {
  input(words: Words, action: string, xsrf: string, message?: string) {
    return page(
      words,
      words.say('deviceTitle'),
      `${message ? `<p role="alert">${message}</p>` : `<p>${words.say('deviceIntro')}</p>`}<form method="post" action="${escapeHtml(action)}"><input type="hidden" name="xsrf" value="${escapeHtml(xsrf)}"><label for="user_code">${words.say('deviceCode')}</label> <input id="user_code" name="user_code" type="text" autocomplete="off" autocapitalize="characters" spellcheck="false" required> <button type="submit">${words.say('continue')}</button></form>`,
    );
  },
  confirm(words: Words, action: string, xsrf: string, app: string, userCode: string) {
    // The code in bold wherever the language puts it: a marker no text holds, replaced after escaping.
    const shows = words.say('deviceShows', { code: '\u0000' }).replace('\u0000', `<strong>${escapeHtml(userCode)}</strong>`);
    return page(
      words,
      words.say('deviceConfirmTitle', { app }),
      `<p>${shows}</p><form method="post" action="${escapeHtml(action)}"><input type="hidden" name="xsrf" value="${escapeHtml(xsrf)}"><input type="hidden" name="user_code" value="${escapeHtml(userCode)}"><button type="submit" name="confirm" value="yes">${words.say('continue')}</button> <button type="submit" name="abort" value="yes">${words.say('cancel')}</button></form>`,
    );
  },
};

/** A page of the provider's own: `title` and `body` are HTML already. */
const page = (words: Words, title: string, body: string) =>
  `<!DOCTYPE html><html lang="${escapeHtml(words.lang)}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${title}</title></head><body><main><h1>${title}</h1>${body}</main></body></html>`;
/** The provider's own pages (an error it cannot send back to an app, the logout question) run no script and take no frame. */
const PAGE_POLICY = "default-src 'none'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

export function createOpenIdProvider(settings: OpenIdSettings, redis: Redis, hooks: OpenIdHooks, logger: Logger): Provider {
  const library = load();
  const { errors } = library;
  const blocks = pemBlocks(settings.privateKeyPem, 'JWT_PRIVATE_KEY');
  // The newest key first: oidc-provider signs with the first that fits, and every one verifies.
  const keys = blocks
    .map((block) => {
      const privateKey = createPrivateKey(block);
      return lowSSigningKey(library, privateKey, publicJwk(createPublicKey(privateKey)).kid);
    })
    .reverse();
  const productResource = `${settings.issuer}/api`;
  // The library refuses to call private and loopback addresses (its guard against SSRF). The apps
  // declared in configuration are the deployment's own, often on its private network: their
  // back-channel endpoints are reached wherever they are. Any other address keeps the guard.
  const declaredOrigins = new Set(settings.clients.flatMap((c) => (c.backchannelLogoutUri ? [new URL(c.backchannelLogoutUri).origin] : [])));

  // A console app's secret is not the library's to compare (it holds hashes): its metadata carries
  // this stand-in, random to the process so that it matches nothing even if compared, with the
  // hashes beside it (`secret_hashes`, read with the app: no second read to check a secret), and
  // compareClientSecret below asks the hook instead.
  const managedSecret = randomBytes(32).toString('base64url');
  // The console's apps, as the library's `Client` model: read at each request (a change holds at once;
  // the library reuses a client object while its metadata is the same).
  const managedClients = {
    async find(id: string) {
      const app = await hooks.managedApp(id);
      if (!app) return undefined;
      const metadata = clientMetadata({ ...app, secret: app.confidential ? managedSecret : undefined });
      return app.confidential ? { ...metadata, secret_hashes: app.secrets.map((s) => ({ hash: s.hash, expires_at: s.expiresAt?.getTime() ?? null })) } : metadata;
    },
  };

  const configuration: Configuration = {
    adapter: (name: string) => (name === 'Client' ? managedClients : new RedisOpenIdStore(redis, name, name === 'AccessToken' ? hooks.grantEnded : undefined)) as never,
    clients: settings.clients.map(clientMetadata),
    async fetch(url, options) {
      if (declaredOrigins.has(new URL(url).origin)) delete (options as { dispatcher?: unknown }).dispatcher;
      return fetch(url, options);
    },
    extraClientMetadata: {
      properties: ['account_kind', 'first_party', 'secret_hashes'],
      validator(_ctx, key, value) {
        if (key === 'secret_hashes' && value !== undefined && !Array.isArray(value)) throw new errors.InvalidClientMetadata('secret_hashes must be a list');
        if (key === 'account_kind' && value !== undefined && value !== 'user' && value !== 'admin') throw new errors.InvalidClientMetadata('account_kind must be user or admin');
        if (key === 'first_party' && value !== undefined && typeof value !== 'boolean') throw new errors.InvalidClientMetadata('first_party must be a boolean');
      },
    },
    clientDefaults: { id_token_signed_response_alg: 'ES256', grant_types: ['authorization_code'], response_types: ['code'], token_endpoint_auth_method: 'none' },
    jwks: { keys: keys as never },
    cookies: {
      keys: settings.cookieKeys,
      names: { session: `${OPENID_COOKIE_PREFIX}session`, interaction: `${OPENID_COOKIE_PREFIX}interaction`, resume: `${OPENID_COOKIE_PREFIX}resume` },
      long: { signed: true, httpOnly: true, sameSite: 'lax' },
      short: { signed: true, httpOnly: true, sameSite: 'lax' },
    },
    claims: { openid: ['sub'], profile: ['name', 'updated_at'], email: ['email', 'email_verified'] },
    // The OpenID scopes alone: a resource server's are its own, given (by the interaction, to the apps
    // it lists) only with a grant for it and carried only by its tokens.
    scopes: [...OIDC_SCOPES],
    responseTypes: ['code'],
    pkce: { required: () => true },
    routes: OPENID_ROUTES,
    interactions: { url: (_ctx, interaction) => interactionPath(interaction.uid) },
    // Every authorization passes the hosted page: it knows whether the browser's session still stands
    // (the provider's own session cookie does not), and a grant is a session of its own. So the only
    // grant an authorization uses is the one its own interaction just gave.
    async loadExistingGrant(ctx) {
      const grantId = ctx.oidc.result?.consent?.grantId;
      return grantId ? ctx.oidc.provider.Grant.find(grantId) : undefined;
    },
    async findAccount(ctx, sub, token) {
      const client = ctx.oidc.client ?? (token?.clientId ? await ctx.oidc.provider.Client.find(token.clientId) : undefined);
      if (!client) return undefined;
      // A code, a refresh token, an access token: only while its grant's session stands.
      if (token && 'grantId' in token && !(await hooks.grantLive(token.grantId as string | undefined))) return undefined;
      const found = await hooks.account(appOf(client).kind, sub);
      if (!found) return undefined;
      return {
        accountId: sub,
        claims: async () => ({
          sub,
          name: found.name,
          email: found.email,
          email_verified: found.emailVerified,
          ...(found.updatedAt ? { updated_at: Math.floor(found.updatedAt.getTime() / 1000) } : {}),
        }),
      };
    },
    async extraTokenClaims(ctx, token) {
      if (token.kind !== 'AccessToken' || !token.grantId) return undefined;
      // The provider's `sid` for this app (the ID token's), when the app takes back-channel logouts.
      const providerSid = 'sid' in token && typeof token.sid === 'string' && ctx.oidc.client?.backchannelLogoutUri ? token.sid : undefined;
      const claims = await hooks.tokenClaims(token.grantId, providerSid ? { sid: providerSid } : undefined);
      if (!claims) throw new errors.InvalidGrant('the session of this grant ended');
      // Kept with the token (introspection says them) and copied into a JWT one (the product's claims).
      return { sid: claims.sid, kind: claims.kind, role: claims.role, session_ends_at: Math.floor(claims.endsAt / 1000) };
    },
    formats: {
      customizers: {
        // The product API's access token, as the gateway and libs/verifier read every access token; a
        // token for another resource server keeps the provider's issuer and that server's audience.
        // Neither outlives its session.
        async jwt(_ctx, token, jwt) {
          const payload = jwt.payload as Record<string, unknown>;
          const endsAt = Number(payload.session_ends_at);
          delete payload.session_ends_at;
          if ((token as { resourceServer?: { audience?: string } }).resourceServer?.audience === settings.productApi.audience) {
            payload.iss = settings.productApi.issuer;
            payload.aud = settings.productApi.audience;
          }
          if (Number.isFinite(endsAt) && typeof payload.exp === 'number') payload.exp = Math.min(payload.exp, endsAt);
        },
      },
    },
    features: {
      devInteractions: { enabled: false },
      // RFC 7009 §2.1: an app revokes only the tokens it was given.
      revocation: { enabled: true, allowedPolicy: async (_ctx, client, token) => token.clientId === client.clientId },
      introspection: {
        enabled: true,
        // A token whose session ended is inactive, as a gateway would find it.
        async allowedPolicy(ctx, client, token) {
          if (client.clientAuthMethod === 'none' && token.clientId !== ctx.oidc.client?.clientId) return false;
          const grantId = 'grantId' in token ? (token.grantId as string | undefined) : undefined;
          return grantId ? hooks.grantLive(grantId) : true;
        },
      },
      userinfo: { enabled: true },
      // Its own logout tells the apps of that browser's sessions; every other end of an app's session
      // is told by entry-points/jobs/app-logouts.ts with tellApp below.
      backchannelLogout: { enabled: true },
      rpInitiatedLogout: {
        enabled: true,
        async logoutSource(ctx, form) {
          ctx.set('Content-Security-Policy', PAGE_POLICY);
          const words = wordsFor(settings.languages, ctx);
          const app = ctx.oidc.client?.clientName ?? words.plain('theApp');
          ctx.body = page(
            words,
            words.say('signOutTitle'),
            `<p>${words.say('signOutOf', { app })}</p>${form}<button type="submit" form="op.logoutForm" value="yes" name="logout">${words.say('signOut')}</button> <button type="submit" form="op.logoutForm">${words.say('staySignedIn')}</button>`,
          );
        },
        async postLogoutSuccessSource(ctx) {
          ctx.set('Content-Security-Policy', PAGE_POLICY);
          const words = wordsFor(settings.languages, ctx);
          ctx.body = page(words, words.say('signedOutTitle'), `<p>${words.say('signedOut')}</p>`);
        },
      },
      resourceIndicators: {
        enabled: true,
        // A first-party app's tokens are for the product's API unless it names another resource.
        defaultResource: async (ctx, client, oneOf) => oneOf ?? (appOf(client).firstParty ? productResource : undefined),
        useGrantedResource: async () => true,
        async getResourceServerInfo(_ctx, resourceIndicator, client) {
          const jwtToken = { accessTokenTTL: settings.productApi.accessTokenTtlSeconds, accessTokenFormat: 'jwt', jwt: { sign: { alg: 'ES256' } } } as const;
          if (resourceIndicator === productResource) {
            if (!appOf(client).firstParty) throw new errors.InvalidTarget();
            return { scope: API_SCOPE, audience: settings.productApi.audience, ...jwtToken };
          }
          // Another resource server: only for the apps it lists, its tokens naming it.
          const resource = settings.resources.find((r) => r.indicator === resourceIndicator && r.apps.includes(client.clientId));
          if (!resource) throw new errors.InvalidTarget();
          return { scope: resource.scopes.join(' '), audience: resource.indicator, ...jwtToken };
        },
      },
      // RFC 8628, for CLIs and TVs: the device shows a code, the person types it at /device, then signs in on the hosted page.
      deviceFlow: {
        enabled: true,
        charset: 'base-20',
        mask: '****-****',
        async userCodeInputSource(ctx, _form, _out, err) {
          ctx.set('Content-Security-Policy', PAGE_POLICY);
          const words = wordsFor(settings.languages, ctx);
          const message = !err ? undefined : words.say(err.name === 'NoCodeError' || 'userCode' in err ? 'deviceWrongCode' : err.name === 'AbortedError' ? 'deviceAborted' : 'deviceFailed');
          ctx.body = deviceCodePage.input(words, ctx.oidc.urlFor('code_verification'), ctx.oidc.session!.state!.secret as string, message);
        },
        async userCodeConfirmSource(ctx, _form, client, _deviceInfo, userCode) {
          ctx.set('Content-Security-Policy', PAGE_POLICY);
          ctx.body = deviceCodePage.confirm(wordsFor(settings.languages, ctx), ctx.oidc.urlFor('code_verification'), ctx.oidc.session!.state!.secret as string, client.clientName ?? client.clientId, userCode);
        },
        async successSource(ctx) {
          ctx.set('Content-Security-Policy', PAGE_POLICY);
          const words = wordsFor(settings.languages, ctx);
          const app = ctx.oidc.client?.clientName ?? words.plain('yourDevice');
          ctx.body = page(words, words.say('deviceSignedInTitle'), `<p>${words.say('deviceSignedIn', { app })}</p>`);
        },
      },
      externalSigningSupport: { enabled: true, ack: 'experimental-01' },
    },
    rotateRefreshToken: true,
    ttl: {
      AccessToken: settings.productApi.accessTokenTtlSeconds,
      AuthorizationCode: 60,
      // A code shown on a TV or a CLI: ten minutes to type it and sign in.
      DeviceCode: 600,
      IdToken: 3600,
      Interaction: 600,
      Session: settings.grantTtlSeconds,
      Grant: settings.grantTtlSeconds,
      RefreshToken: settings.refreshTtlSeconds,
    },
    async renderError(ctx, out) {
      ctx.type = 'html';
      ctx.set('Content-Security-Policy', PAGE_POLICY);
      const words = wordsFor(settings.languages, ctx);
      // The provider's own description of the error stays as it wrote it (English): it names the protocol's fault.
      ctx.body = page(words, words.say('errorTitle'), `<p>${escapeHtml(out.error_description ?? out.error)}</p><p>${words.say('errorBack')}</p>`);
    },
  };

  const provider = new library.Provider(settings.issuer, configuration);
  const compareSecret = provider.Client.prototype.compareClientSecret;
  provider.Client.prototype.compareClientSecret = async function (this: InstanceType<Provider['Client']>, presented: string) {
    if (this.clientSecret === managedSecret) {
      const kept = (this as unknown as { secret_hashes?: Array<{ hash: string; expires_at: number | null }> }).secret_hashes ?? [];
      return hooks.secretMatches(kept.map((s) => ({ hash: s.hash, ...(s.expires_at !== null ? { expiresAt: new Date(s.expires_at) } : {}) })), presented);
    }
    return compareSecret.call(this, presented);
  };
  // Behind the gateway: the issuer's scheme and host are the ones the public sees (set per request by the entry point).
  provider.proxy = true;
  provider.on('server_error', (_ctx: unknown, err: Error) => logger.error({ reason: err.message }, 'OpenID provider error'));
  provider.on('backchannel.error', (_ctx: unknown, err: Error, client: { clientId: string }) => logger.warn({ app_id: client.clientId, reason: err.message }, 'Back-channel logout at sign-out not taken'));
  return provider;
}

/**
 * Tells an app that one of its sessions ended (back-channel logout): a logout token (`sub`, `sid`,
 * the back-channel event, signed with the provider's keys) POSTed to its `backchannel_logout_uri`.
 * Throws when the app does not answer 200 or 204.
 */
export function tellApp(provider: Provider): (logout: { appId: string; accountId: string; sid: string }) => Promise<'told' | 'not_asked'> {
  return async ({ appId, accountId, sid }) => {
    const client = await provider.Client.find(appId);
    if (!client?.backchannelLogoutUri) return 'not_asked';
    // The library's own sender (its end_session uses it); its types leave it out.
    await (client as unknown as { backchannelLogout(sub: string, sid: string): Promise<void> }).backchannelLogout(accountId, sid);
    return 'told';
  };
}

/** Serves the provider's own routes: its answer for a request under OPENID_PREFIX or the discovery document. */
export function providerHandler(provider: Provider, issuer: string): (req: http.IncomingMessage, res: http.ServerResponse) => void {
  const { host, protocol } = new URL(issuer);
  const callback = provider.callback();
  return (req, res) => {
    // The issuer's own scheme and host, whatever the hop from the gateway was.
    req.headers['x-forwarded-host'] = host;
    req.headers['x-forwarded-proto'] = protocol.replace(':', '');
    delete req.headers['x-forwarded-for'];
    callback(req, res);
  };
}

export type { Provider, KoaContextWithOIDC };
