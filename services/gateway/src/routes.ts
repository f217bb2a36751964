// The route allow-list: every public route, its upstream, body handling and refresh cookie. Anything
// not listed answers 404 here and never reaches a service.
import type { AccountKind } from '@acct/shared';

/** Where a route is answered: a service, or the gateway itself from memory (`local`). */
export type Upstream = 'auth' | 'desktop' | 'local';

export interface RouteSpec {
  method: 'get' | 'post' | 'put' | 'delete';
  path: string;
  upstream: Upstream;
  /** json: read whole (up to BODY_LIMIT) and sent in one write; stream: piped with a byte cap (uploads); none: no body. */
  body: 'json' | 'stream' | 'none';
  /** The kind whose refresh cookie this route may set or clear. */
  cookieKind?: AccountKind;
  /** Whether the route reads the refresh cookie (passed to the service out of band). */
  readsCookie?: boolean;
  /** Whether the route acts on an access token: one of an ended session is refused here (401 `session_revoked`). */
  bearer?: boolean;
  /** The service's answer names the kind whose cookie it sets (verify-otp serves both); `cookieKind` when it does not. */
  cookieKindFromAnswer?: boolean;
  /** A sign-in with an identity provider: `set` starts one (the flow cookie), `read` is its callback (the cookie read, then cleared). */
  identityFlow?: 'set' | 'read';
  /** The kind whose identity flow cookie (`Path=/api/auth/<kind>/oidc`) the route sets or reads. */
  identityKind?: AccountKind;
}

/** Sign-in with identity providers, for one kind: the redirect to one and its callback (top-level navigations), and the account's identities. */
const identityRoutes = (kind: AccountKind): RouteSpec[] => {
  const base = `/api/auth/${kind}`;
  const flow = { upstream: 'auth', identityKind: kind } as const;
  return [
    { ...flow, method: 'get', path: `${base}/oidc/:provider/start`, body: 'none', identityFlow: 'set' },
    { ...flow, method: 'get', path: `${base}/oidc/:provider/callback`, body: 'none', identityFlow: 'read', cookieKind: kind },
    { method: 'get', path: `${base}/identities`, upstream: 'auth', body: 'none', bearer: true },
    { ...flow, method: 'post', path: `${base}/identities/:provider`, body: 'json', bearer: true, identityFlow: 'set' },
    { method: 'delete', path: `${base}/identities/:provider`, upstream: 'auth', body: 'none', bearer: true },
  ];
};

/** Second factors: sign-in with a passkey, and what a signed-in account does with its own factors. */
const factorRoutes = (kind: AccountKind): RouteSpec[] => {
  const base = `/api/auth/${kind}`;
  const own = (method: RouteSpec['method'], path: string, body: RouteSpec['body'] = 'none'): RouteSpec => ({ method, path: `${base}${path}`, upstream: 'auth', body, bearer: true });
  return [
    { method: 'post', path: `${base}/passkey/options`, upstream: 'auth', body: 'none' },
    { method: 'post', path: `${base}/passkey/login`, upstream: 'auth', body: 'json', cookieKind: kind },
    own('post', '/reauthenticate', 'json'),
    // Answers a new session in the kind's cookie: every other one ended with the change.
    { ...own('post', '/password', 'json'), cookieKind: kind },
    // Deleting one's account clears the kind's cookie.
    { ...own('delete', '/me', 'json'), cookieKind: kind },
    own('get', '/factors'),
    own('post', '/factors/totp'),
    own('post', '/factors/totp/confirm', 'json'),
    own('delete', '/factors/totp'),
    own('post', '/factors/recovery-codes'),
    own('post', '/factors/passkeys/options'),
    own('post', '/factors/passkeys', 'json'),
    own('delete', '/factors/passkeys/:passkeyId'),
  ];
};

const accountRoutes = (kind: AccountKind): RouteSpec[] =>
  (['register', 'login', 'refresh', 'logout', 'forgot-password', 'reset-password'] as const).map((action) => ({
    method: 'post',
    path: `/api/auth/${kind}/${action}`,
    upstream: 'auth',
    body: action === 'refresh' || action === 'logout' ? 'none' : 'json',
    cookieKind: kind,
    readsCookie: action === 'refresh' || action === 'logout',
    // Admin registration reads a token too, but only to grant: an ended session's counts as none (403, auth decides).
  }));

export const ROUTES: RouteSpec[] = [
  ...accountRoutes('admin'),
  ...accountRoutes('user'),
  { method: 'post', path: '/api/auth/verify-otp', upstream: 'auth', body: 'json', cookieKind: 'admin', cookieKindFromAnswer: true },
  { method: 'post', path: '/api/auth/verify-otp/passkey-options', upstream: 'auth', body: 'json' },
  { method: 'post', path: '/api/auth/user/verify-email', upstream: 'auth', body: 'json' },
  { method: 'post', path: '/api/auth/user/verify-email/resend', upstream: 'auth', body: 'json' },
  { method: 'post', path: '/api/auth/user/email', upstream: 'auth', body: 'json', bearer: true },
  { method: 'post', path: '/api/auth/user/email/confirm', upstream: 'auth', body: 'json' },
  { method: 'post', path: '/api/auth/user/email/undo', upstream: 'auth', body: 'json' },
  ...factorRoutes('admin'),
  ...factorRoutes('user'),
  // Identity providers: the list, then each kind's flows and identities.
  { method: 'get', path: '/api/auth/identity-providers', upstream: 'auth', body: 'none' },
  ...identityRoutes('admin'),
  ...identityRoutes('user'),
  { method: 'get', path: '/api/auth/user/me', upstream: 'auth', body: 'none', bearer: true },
  { method: 'get', path: '/api/auth/user/me/avatar', upstream: 'auth', body: 'none', bearer: true },
  { method: 'get', path: '/api/auth/user/me/export', upstream: 'auth', body: 'none', bearer: true },
  { method: 'get', path: '/api/auth/user/sessions', upstream: 'auth', body: 'none', bearer: true },
  { method: 'get', path: '/api/auth/user/activity', upstream: 'auth', body: 'none', bearer: true },
  { method: 'post', path: '/api/auth/user/sessions/sign-out-others', upstream: 'auth', body: 'none', bearer: true },
  { method: 'delete', path: '/api/auth/user/sessions/:sessionId', upstream: 'auth', body: 'none', bearer: true },
  { method: 'get', path: '/api/admin/users', upstream: 'auth', body: 'none', bearer: true },
  { method: 'get', path: '/api/admin/users/:userId', upstream: 'auth', body: 'none', bearer: true },
  { method: 'put', path: '/api/admin/users/:userId', upstream: 'auth', body: 'json', bearer: true },
  { method: 'delete', path: '/api/admin/users/:userId', upstream: 'auth', body: 'none', bearer: true },
  { method: 'put', path: '/api/admin/users/:userId/avatar', upstream: 'auth', body: 'stream', bearer: true },
  { method: 'get', path: '/api/admin/users/:userId/factors', upstream: 'auth', body: 'none', bearer: true },
  { method: 'delete', path: '/api/admin/users/:userId/factors', upstream: 'auth', body: 'none', bearer: true },
  { method: 'get', path: '/api/admin/users/:userId/avatar', upstream: 'auth', body: 'none', bearer: true },
  { method: 'get', path: '/api/admin/users/:userId/activity', upstream: 'auth', body: 'none', bearer: true },
  { method: 'get', path: '/api/admin/activity', upstream: 'auth', body: 'none', bearer: true },
  { method: 'get', path: '/api/admin/users/:userId/sessions', upstream: 'auth', body: 'none', bearer: true },
  { method: 'delete', path: '/api/admin/users/:userId/sessions', upstream: 'auth', body: 'none', bearer: true },
  { method: 'delete', path: '/api/admin/users/:userId/sessions/:sessionId', upstream: 'auth', body: 'none', bearer: true },
  { method: 'get', path: '/api/admin/users/:userId/identities', upstream: 'auth', body: 'none', bearer: true },
  { method: 'delete', path: '/api/admin/users/:userId/identities/:provider', upstream: 'auth', body: 'none', bearer: true },
  { method: 'get', path: '/api/admin/admins', upstream: 'auth', body: 'none', bearer: true },
  // The desktop releases, through auth (the admin's recent proof, the activity log) to desktop.
  { method: 'get', path: '/api/admin/desktop/releases', upstream: 'auth', body: 'none', bearer: true },
  { method: 'post', path: '/api/admin/desktop/releases', upstream: 'auth', body: 'json', bearer: true },
  { method: 'delete', path: '/api/admin/desktop/releases/:platform/:version', upstream: 'auth', body: 'none', bearer: true },
  { method: 'get', path: '/api/desktop/latest-version', upstream: 'desktop', body: 'none' },
  // The access tokens' public keys, for other back ends to verify them (answered from memory).
  { method: 'get', path: '/.well-known/jwks.json', upstream: 'local', body: 'none' },
  // Ended sessions as server-sent events, for back ends with a feed token (answered from the gateway's feed).
  { method: 'get', path: '/api/revocations', upstream: 'local', body: 'none' },
  { method: 'post', path: '/api/desktop/sync', upstream: 'desktop', body: 'json', bearer: true },
];
