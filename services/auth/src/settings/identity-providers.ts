// Identity providers (OpenID Connect): which ones users and admins may sign in with, their client
// secrets, where their callbacks land and where a sign-in may return to.
import { z } from 'zod';
import { env, isLocalUrl, splitList } from '@acct/shared';
import { pathOf } from '@acct/shared/routes';
import { feature, parseJsonEntries, parseSecretsById } from './feature';

/** Where a sign-in may return outside production when OIDC_APP_URLS is unset: the usual dev servers. */
const DEVELOPMENT_APP_URLS = ['http://localhost:3000/', 'http://localhost:5173/', 'http://localhost:8080/'];

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

export const identityProviderSettings = feature({
  variables: {
    /**
     * Identity providers users may sign in with (OpenID Connect), as a JSON array of
     * `{"id","issuer","clientId","name"?,"scopes"?}`; empty: none. Secrets go in OIDC_CLIENT_SECRETS.
     */
    OIDC_PROVIDERS: z
      .string()
      .optional()
      .transform((v, ctx) => parseJsonEntries(v, ctx, providerSchema, { what: 'provider', expected: '{"id","issuer","clientId","name"?,"scopes"?}' })),
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
  },
  section: (v, ctx) => {
    const secrets = parseSecretsById(v.OIDC_CLIENT_SECRETS, ctx, 'OIDC_CLIENT_SECRETS', { ids: v.OIDC_PROVIDERS.map((p) => p.id), listedIn: 'OIDC_PROVIDERS', what: 'provider', minLength: 1 });
    const known = (id: string) => v.OIDC_PROVIDERS.some((p) => p.id === id);
    const strangers = v.OIDC_ADMIN_PROVIDERS.filter((id) => !known(id));
    if (strangers.length) ctx.addIssue({ code: 'custom', path: ['OIDC_ADMIN_PROVIDERS'], message: `providers not in OIDC_PROVIDERS: ${strangers.join(', ')}` });
    const origin = (v.OIDC_REDIRECT_URL_BASE ?? 'http://localhost:8080').replace(/\/+$/, '');
    // The gateway's own pages on the API's origin (sign-in, and the console that links providers): a
    // flow they start may always return to them, after the operator's app URLs (the first stays the fallback).
    const hostedPages = ['/login', '/admin/login', '/account'].map((page) => `${origin}${page}`);
    return {
      providers: v.OIDC_PROVIDERS.map((p) => ({
        id: p.id,
        name: p.name ?? p.id,
        issuer: p.issuer,
        clientId: p.clientId,
        clientSecret: secrets[p.id],
        scopes: p.scopes ?? 'openid email profile',
        redirectUris: { user: `${origin}${pathOf('completeIdentitySignIn', { provider: p.id })}`, admin: `${origin}${pathOf('completeAdminIdentitySignIn', { provider: p.id })}` },
      })),
      appUrls: [...(v.OIDC_APP_URLS.length ? v.OIDC_APP_URLS : DEVELOPMENT_APP_URLS), ...hostedPages],
      flowTtlMs: v.OIDC_FLOW_TTL_SECONDS * 1000,
      adminProviders: v.OIDC_ADMIN_PROVIDERS,
    };
  },
  /** With providers, the callbacks' origin and the app URLs are public https addresses. */
  production: (given) => {
    if (['', '[]'].includes((given.OIDC_PROVIDERS ?? '').replace(/\s/g, ''))) return [];
    const refused: Array<[string, string]> = [];
    const base = given.OIDC_REDIRECT_URL_BASE;
    if (!base) refused.push(['OIDC_REDIRECT_URL_BASE', 'required in production with identity providers: the public https origin of the API']);
    else if (isLocalUrl(base) || !/^https:\/\//i.test(base)) refused.push(['OIDC_REDIRECT_URL_BASE', 'must be the public https origin of the API in production']);
    const apps = splitList(given.OIDC_APP_URLS ?? '');
    if (!apps.length) refused.push(['OIDC_APP_URLS', 'required in production with identity providers: the app pages a sign-in may return to']);
    const plain = apps.filter((u) => isLocalUrl(u) || !/^https:\/\//i.test(u));
    if (plain.length) refused.push(['OIDC_APP_URLS', `in production every app URL must be https and public (refused: ${plain.join(', ')})`]);
    return refused;
  },
  policy: (s) => ({ identity: { appUrls: s.appUrls, flowTtlMs: s.flowTtlMs, adminProviders: s.adminProviders } }),
});
