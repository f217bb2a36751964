// This service as an OpenID Connect provider (security/openid-provider.ts): whether it is on, the
// issuer (the public origin the pages and the API are on), the apps declared in configuration (the
// product's own: the admin panel, the desktop client), their secrets, and the key that signs the
// provider's cookies. Off unless turned on: a new way in is the deployment's choice. The OPENID_
// prefix is this service as a provider; OIDC_ is the providers it signs people in with.
import { z } from 'zod';
import { env, isLocalUrl, isOn } from '@acct/shared';
import { feature, parseJsonEntries, parseSecretsById } from './feature';

/** The gateway's origin on a development machine (where the hosted pages are). */
const DEVELOPMENT_ISSUER = 'http://localhost:8080';
const CLIENT_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
const SCOPES = ['openid', 'profile', 'email', 'offline_access'] as const;

/** One app as OPENID_CLIENTS gives it. */
const clientSchema = z
  .object({
    id: z.string().regex(CLIENT_ID, 'id: letters, digits, dot, dash and underscore, at most 64'),
    name: z.string().min(1).max(64),
    /** Whose accounts sign in to it: the admin panel's are admins. */
    kind: z.enum(['user', 'admin']).default('user'),
    /** The product's own app: no consent page, and its access tokens are the product API's. */
    firstParty: z.boolean().default(false),
    /** RFC 8252: loopback redirects on any port and private-use schemes; such an app keeps no secret. */
    native: z.boolean().default(false),
    /** RFC 8628: a CLI or a TV signs in by a code the person types at /device (such an app may have no redirect URI). */
    deviceCode: z.boolean().default(false),
    redirectUris: z.array(z.string().url()).default([]),
    postLogoutRedirectUris: z.array(z.string().url()).default([]),
    /** OpenID back-channel logout: where the app is told, with a logout token, that one of its sessions ended (any way it ended). */
    backchannelLogoutUri: z.string().url().optional(),
    scopes: z.array(z.enum(SCOPES)).default([...SCOPES]),
  })
  .strict()
  .refine((c) => c.redirectUris.length > 0 || c.deviceCode, { message: 'an app needs redirectUris, or deviceCode', path: ['redirectUris'] });

export type OpenIdClientEntry = z.infer<typeof clientSchema> & { secret?: string };

/** A resource server other than the product's API (RFC 8707): apps name it to get access tokens for it alone. */
const resourceSchema = z
  .object({
    /** Its resource indicator, the tokens' `aud`: an absolute URI with no fragment. */
    indicator: z
      .string()
      .url()
      .refine((v) => !v.includes('#'), 'indicator: an absolute URI with no fragment (RFC 8707)'),
    name: z.string().min(1).max(64),
    /** Its scopes, as apps ask for them and the consent page lists them. */
    scopes: z.array(z.string().regex(/^[A-Za-z0-9][A-Za-z0-9:._/-]{0,63}$/, 'scopes: letters, digits and : . _ / -, at most 64')).min(1),
    /** The apps (OPENID_CLIENTS ids) that may ask for its tokens. */
    apps: z.array(z.string()).min(1),
  })
  .strict();

export type OpenIdResourceEntry = z.infer<typeof resourceSchema>;

export const openIdProviderSettings = feature({
  variables: {
    /** Other apps sign their people in here (OpenID Connect: authorization code with PKCE, refresh, userinfo, revocation, introspection, logout). */
    OPENID_PROVIDER: env.bool(false),
    /** The deployment's language files (as the gateway's and the notifier's LANGUAGES_DIR): the provider's own pages (sign-out, a device's code, an error) speak them too. */
    LANGUAGES_DIR: z.string().min(1).optional(),
    /** The issuer: the public origin browsers reach the pages and the API at. Required in production when on. */
    OPENID_ISSUER: z.string().url().optional(),
    /**
     * The apps declared in configuration, a JSON array of `{"id","name","redirectUris",
     * "kind"?,"firstParty"?,"native"?,"deviceCode"?,"postLogoutRedirectUris"?,"backchannelLogoutUri"?,"scopes"?}`. Secrets go in OPENID_CLIENT_SECRETS.
     */
    OPENID_CLIENTS: z
      .string()
      .optional()
      .transform((v, ctx) => parseJsonEntries(v, ctx, clientSchema, { what: 'app', expected: '{"id","name","redirectUris",…}' })),
    /**
     * Resource servers other than the product's API (RFC 8707 resource indicators), a JSON array of
     * `{"indicator","name","scopes","apps"}`: an app among `apps` that names `indicator` gets an access
     * token for it alone (a JWT, `aud` the indicator, signed with the published keys), never one the product API takes.
     */
    OPENID_RESOURCES: z
      .string()
      .optional()
      .transform((v, ctx) => parseJsonEntries(v, ctx, resourceSchema, { what: 'resource server', expected: '{"indicator","name","scopes","apps"}' })),
    /** The confidential apps' secrets, a JSON object of app id to secret (at least 32 characters); an app without one is public (PKCE alone). */
    ...env.secret('OPENID_CLIENT_SECRETS'),
    /** Signs the provider's cookies (at least 32 characters); several, comma-separated, while one is replaced (the first signs). Unset: a key derived from OTP_SECRET. */
    ...env.secret('OPENID_COOKIE_KEYS'),
  },
  section: (v, ctx) => {
    const secrets = parseSecretsById(v.OPENID_CLIENT_SECRETS, ctx, 'OPENID_CLIENT_SECRETS', { ids: v.OPENID_CLIENTS.map((c) => c.id), listedIn: 'OPENID_CLIENTS', what: 'app', minLength: 32 });
    const nativeWithSecret = v.OPENID_CLIENTS.filter((c) => c.native && secrets[c.id]).map((c) => c.id);
    if (nativeWithSecret.length) ctx.addIssue({ code: 'custom', path: ['OPENID_CLIENT_SECRETS'], message: `a native app keeps no secret (RFC 8252 §8.5): ${nativeWithSecret.join(', ')}` });
    const appIds = new Set(v.OPENID_CLIENTS.map((c) => c.id));
    for (const resource of v.OPENID_RESOURCES) {
      const unknown = resource.apps.filter((id) => !appIds.has(id));
      if (unknown.length) ctx.addIssue({ code: 'custom', path: ['OPENID_RESOURCES'], message: `${resource.indicator}: apps not in OPENID_CLIENTS: ${unknown.join(', ')}` });
      const clash = resource.scopes.filter((scope) => (SCOPES as readonly string[]).includes(scope) || scope === 'api');
      if (clash.length) ctx.addIssue({ code: 'custom', path: ['OPENID_RESOURCES'], message: `${resource.indicator}: scopes taken by the provider: ${clash.join(', ')}` });
    }
    const indicators = v.OPENID_RESOURCES.map((r) => r.indicator.replace(/\/+$/, ''));
    const issuerOf = (v.OPENID_ISSUER ?? DEVELOPMENT_ISSUER).replace(/\/+$/, '');
    if (new Set(indicators).size !== indicators.length || indicators.includes(`${issuerOf}/api`)) ctx.addIssue({ code: 'custom', path: ['OPENID_RESOURCES'], message: 'each indicator once, and never the product API\'s own (<issuer>/api)' });
    const cookieKeys = (v.OPENID_COOKIE_KEYS ?? '').split(',').map((k) => k.trim()).filter(Boolean);
    const short = cookieKeys.some((k) => k.length < 32);
    if (short) ctx.addIssue({ code: 'custom', path: ['OPENID_COOKIE_KEYS'], message: 'each key must be at least 32 characters' });
    return {
      enabled: v.OPENID_PROVIDER,
      languagesDir: v.LANGUAGES_DIR,
      issuer: (v.OPENID_ISSUER ?? DEVELOPMENT_ISSUER).replace(/\/+$/, ''),
      clients: v.OPENID_CLIENTS.map((c): OpenIdClientEntry => ({ ...c, secret: secrets[c.id] })),
      resources: v.OPENID_RESOURCES,
      // None given: the composition root derives one from OTP_SECRET, which every replica has.
      cookieKeys,
    };
  },
  policy: (s) => ({
    apps: {
      enabled: s.enabled,
      declared: s.clients.map(({ secret, ...app }) => ({ ...app, confidential: secret !== undefined })),
    },
  }),
  production: (given) => {
    if (!isOn(given.OPENID_PROVIDER)) return [];
    const refused: Array<[string, string]> = [];
    const issuer = given.OPENID_ISSUER;
    if (!issuer) refused.push(['OPENID_ISSUER', 'required in production with OPENID_PROVIDER: the public https origin of the pages']);
    else if (isLocalUrl(issuer) || !/^https:\/\//i.test(issuer)) refused.push(['OPENID_ISSUER', 'must be the public https origin of the pages in production']);
    return refused;
  },
});
