// Every public route, declared once, as data: its OpenAPI operation id, method and path, where it is
// answered, how its body travels, who may call it, and the cookies it touches. The gateway's
// allow-list is this table (anything not in it answers 404 at the edge and never reaches a service);
// test/repo/openapi.test.ts holds it equal to openapi/openapi.yaml by operation id, caller and all, and
// test/e2e/route-table.security.test.ts sends every guarded route a caller it must refuse. A new
// route is one row here (a route of both kinds on the caller's own account, one `ownRoute` line),
// one operation there, and its handler, bound by the row's operation id.
import type { RouteSpec, Upstream } from './spec';

export { actsOnSession, type BrowserFlowFamily, type Caller, type RouteSpec, type Upstream } from './spec';

/** The row of a route on the caller's own account, for one kind: `<kind>` in its path, `Admin`/`User` ending its id, the kind its caller. */
type OwnRow<Id extends string, S extends string, R, K extends 'admin' | 'user', Name extends string> = R & {
  readonly operationId: `${Id}${Name}`;
  readonly path: `/api/auth/${K}${S}`;
  readonly upstream: 'auth';
  readonly caller: K;
};

/** A route the contract has once for each kind, on the caller's own account: one line, two rows. */
function ownRoute<const Id extends string, const S extends `/${string}`, const R extends Pick<RouteSpec, 'method' | 'body' | 'proof'>>(
  id: Id,
  suffix: S,
  row: R,
): readonly [OwnRow<Id, S, R, 'admin', 'Admin'>, OwnRow<Id, S, R, 'user', 'User'>] {
  return [
    { ...row, operationId: `${id}Admin`, path: `/api/auth/admin${suffix}`, upstream: 'auth', caller: 'admin' },
    { ...row, operationId: `${id}User`, path: `/api/auth/user${suffix}`, upstream: 'auth', caller: 'user' },
  ];
}

const TABLE = [
  // The contract's account routes, for each kind: their answers set or clear the kind's refresh cookie.
  // Admin registration reads a token too, but only to grant: an ended session's counts as none (403, auth decides).
  { operationId: 'registerAdmin', method: 'post', path: '/api/auth/admin/register', upstream: 'auth', body: 'json', caller: 'anyone', cookieKind: 'admin', proof: 'recent' },
  { operationId: 'loginAdmin', method: 'post', path: '/api/auth/admin/login', upstream: 'auth', body: 'json', caller: 'anyone', cookieKind: 'admin', trustedBrowser: 'read', botCheck: true },
  { operationId: 'refreshAdmin', method: 'post', path: '/api/auth/admin/refresh', upstream: 'auth', body: 'none', caller: 'anyone', cookieKind: 'admin', readsCookie: true },
  { operationId: 'logoutAdmin', method: 'post', path: '/api/auth/admin/logout', upstream: 'auth', body: 'none', caller: 'anyone', cookieKind: 'admin', readsCookie: true },
  { operationId: 'forgotAdminPassword', method: 'post', path: '/api/auth/admin/forgot-password', upstream: 'auth', body: 'json', caller: 'anyone', cookieKind: 'admin', botCheck: true },
  { operationId: 'resetAdminPassword', method: 'post', path: '/api/auth/admin/reset-password', upstream: 'auth', body: 'json', caller: 'anyone', cookieKind: 'admin' },
  // A new password's rules as they are met, while a form is typed in (nothing is kept).
  { operationId: 'checkPassword', method: 'post', path: '/api/auth/password-check', upstream: 'auth', body: 'json', caller: 'anyone' },
  { operationId: 'registerUser', method: 'post', path: '/api/auth/user/register', upstream: 'auth', body: 'json', caller: 'anyone', cookieKind: 'user', botCheck: true },
  { operationId: 'loginUser', method: 'post', path: '/api/auth/user/login', upstream: 'auth', body: 'json', caller: 'anyone', cookieKind: 'user', trustedBrowser: 'read', botCheck: true },
  { operationId: 'refreshUser', method: 'post', path: '/api/auth/user/refresh', upstream: 'auth', body: 'none', caller: 'anyone', cookieKind: 'user', readsCookie: true },
  { operationId: 'logoutUser', method: 'post', path: '/api/auth/user/logout', upstream: 'auth', body: 'none', caller: 'anyone', cookieKind: 'user', readsCookie: true },
  { operationId: 'forgotUserPassword', method: 'post', path: '/api/auth/user/forgot-password', upstream: 'auth', body: 'json', caller: 'anyone', cookieKind: 'user', botCheck: true },
  { operationId: 'resetUserPassword', method: 'post', path: '/api/auth/user/reset-password', upstream: 'auth', body: 'json', caller: 'anyone', cookieKind: 'user' },
  // Signing in with only an address: the request (its flow cookie binds the link to this browser), the mailed link, the mailed code.
  { operationId: 'getBotCheck', method: 'get', path: '/api/auth/bot-check', upstream: 'auth', body: 'none', caller: 'anyone' },
  { operationId: 'signInMethods', method: 'get', path: '/api/auth/sign-in-methods', upstream: 'auth', body: 'none', caller: 'anyone' },
  { operationId: 'requestEmailSignInUser', method: 'post', path: '/api/auth/user/email-sign-in', upstream: 'auth', body: 'json', caller: 'anyone', browserFlow: { step: 'set', kind: 'user', family: 'email-sign-in' }, botCheck: true },
  { operationId: 'emailLinkSignInUser', method: 'post', path: '/api/auth/user/email-sign-in/link', upstream: 'auth', body: 'json', caller: 'anyone', cookieKind: 'user', browserFlow: { step: 'read', kind: 'user', family: 'email-sign-in' } },
  { operationId: 'emailCodeSignInUser', method: 'post', path: '/api/auth/user/email-sign-in/code', upstream: 'auth', body: 'json', caller: 'anyone', cookieKind: 'user' },
  { operationId: 'requestEmailSignInAdmin', method: 'post', path: '/api/auth/admin/email-sign-in', upstream: 'auth', body: 'json', caller: 'anyone', browserFlow: { step: 'set', kind: 'admin', family: 'email-sign-in' }, botCheck: true },
  { operationId: 'emailLinkSignInAdmin', method: 'post', path: '/api/auth/admin/email-sign-in/link', upstream: 'auth', body: 'json', caller: 'anyone', cookieKind: 'admin', browserFlow: { step: 'read', kind: 'admin', family: 'email-sign-in' } },
  { operationId: 'emailCodeSignInAdmin', method: 'post', path: '/api/auth/admin/email-sign-in/code', upstream: 'auth', body: 'json', caller: 'anyone', cookieKind: 'admin' },
  // The second step of a sign-in, and the proof of an address and its changes.
  { operationId: 'verifyOtp', method: 'post', path: '/api/auth/verify-otp', upstream: 'auth', body: 'json', caller: 'anyone', cookieKind: 'admin', cookieKindFromAnswer: true, trustedBrowser: 'set' },
  { operationId: 'secondStepPasskeyOptions', method: 'post', path: '/api/auth/verify-otp/passkey-options', upstream: 'auth', body: 'json', caller: 'anyone' },
  // Getting back in without the second factors: asked from a second step, confirmed by the mailbox, then a wait.
  { operationId: 'requestFactorRecovery', method: 'post', path: '/api/auth/verify-otp/recovery', upstream: 'auth', body: 'json', caller: 'anyone' },
  { operationId: 'confirmFactorRecovery', method: 'post', path: '/api/auth/factor-recovery/confirm', upstream: 'auth', body: 'json', caller: 'anyone' },
  { operationId: 'verifyEmail', method: 'post', path: '/api/auth/user/verify-email', upstream: 'auth', body: 'json', caller: 'anyone' },
  { operationId: 'resendVerification', method: 'post', path: '/api/auth/user/verify-email/resend', upstream: 'auth', body: 'json', caller: 'anyone', botCheck: true },
  { operationId: 'requestEmailChange', method: 'post', path: '/api/auth/user/email', upstream: 'auth', body: 'json', caller: 'user', proof: 'password-or-recent' },
  { operationId: 'confirmEmailChange', method: 'post', path: '/api/auth/user/email/confirm', upstream: 'auth', body: 'json', caller: 'anyone' },
  { operationId: 'undoEmailChange', method: 'post', path: '/api/auth/user/email/undo', upstream: 'auth', body: 'json', caller: 'anyone' },
  // Second factors: sign-in with a passkey, and what a signed-in account does with its own factors.
  { operationId: 'passkeyOptionsAdmin', method: 'post', path: '/api/auth/admin/passkey/options', upstream: 'auth', body: 'none', caller: 'anyone' },
  { operationId: 'passkeyLoginAdmin', method: 'post', path: '/api/auth/admin/passkey/login', upstream: 'auth', body: 'json', caller: 'anyone', cookieKind: 'admin' },
  { operationId: 'changePasswordAdmin', method: 'post', path: '/api/auth/admin/password', upstream: 'auth', body: 'json', caller: 'admin', cookieKind: 'admin', proof: 'password-or-recent' },
  { operationId: 'removePasswordAdmin', method: 'delete', path: '/api/auth/admin/password', upstream: 'auth', body: 'none', caller: 'admin', cookieKind: 'admin', proof: 'recent' },
  { operationId: 'deleteOwnAdminAccount', method: 'delete', path: '/api/auth/admin/me', upstream: 'auth', body: 'json', caller: 'admin', cookieKind: 'admin', proof: 'password-or-recent' },
  { operationId: 'passkeyOptionsUser', method: 'post', path: '/api/auth/user/passkey/options', upstream: 'auth', body: 'none', caller: 'anyone' },
  { operationId: 'passkeyLoginUser', method: 'post', path: '/api/auth/user/passkey/login', upstream: 'auth', body: 'json', caller: 'anyone', cookieKind: 'user' },
  { operationId: 'changePasswordUser', method: 'post', path: '/api/auth/user/password', upstream: 'auth', body: 'json', caller: 'user', cookieKind: 'user', proof: 'password-or-recent' },
  { operationId: 'removePasswordUser', method: 'delete', path: '/api/auth/user/password', upstream: 'auth', body: 'none', caller: 'user', cookieKind: 'user', proof: 'recent' },
  { operationId: 'deleteOwnUserAccount', method: 'delete', path: '/api/auth/user/me', upstream: 'auth', body: 'json', caller: 'user', cookieKind: 'user', proof: 'password-or-recent' },
  // On the caller's own account, each line the route of both kinds: a recent proof, and the factors.
  ...ownRoute('reauthenticate', '/reauthenticate', { method: 'post', body: 'json' }),
  ...ownRoute('listFactors', '/factors', { method: 'get', body: 'none' }),
  // Browsers trusted at a second step: listed, and each forgotten (forgetting asks for no proof: it only takes trust away).
  ...ownRoute('listTrustedBrowsers', '/trusted-browsers', { method: 'get', body: 'none' }),
  ...ownRoute('forgetTrustedBrowser', '/trusted-browsers/:browserId', { method: 'delete', body: 'none' }),
  ...ownRoute('cancelFactorRecovery', '/factor-recovery', { method: 'delete', body: 'none', proof: 'recent' }),
  ...ownRoute('startTotp', '/factors/totp', { method: 'post', body: 'none', proof: 'recent' }),
  ...ownRoute('confirmTotp', '/factors/totp/confirm', { method: 'post', body: 'json' }),
  ...ownRoute('removeTotp', '/factors/totp', { method: 'delete', body: 'none', proof: 'recent' }),
  ...ownRoute('recoveryCodes', '/factors/recovery-codes', { method: 'post', body: 'none', proof: 'recent' }),
  ...ownRoute('passkeyRegistrationOptions', '/factors/passkeys/options', { method: 'post', body: 'none', proof: 'recent' }),
  ...ownRoute('addPasskey', '/factors/passkeys', { method: 'post', body: 'json', proof: 'recent' }),
  ...ownRoute('removePasskey', '/factors/passkeys/:passkeyId', { method: 'delete', body: 'none', proof: 'recent' }),
  ...ownRoute('removeFactor', '/factors/:factorId', { method: 'delete', body: 'none', proof: 'recent' }),
  // Identity providers: the list, then each kind's redirect and callback (top-level navigations) and identities.
  { operationId: 'listIdentityProviders', method: 'get', path: '/api/auth/identity-providers', upstream: 'auth', body: 'none', caller: 'anyone' },
  { operationId: 'startAdminIdentitySignIn', method: 'get', path: '/api/auth/admin/oidc/:provider/start', upstream: 'auth', body: 'none', caller: 'anyone', browserFlow: { step: 'set', kind: 'admin', family: 'oidc' } },
  { operationId: 'completeAdminIdentitySignIn', method: 'get', path: '/api/auth/admin/oidc/:provider/callback', upstream: 'auth', body: 'none', caller: 'anyone', cookieKind: 'admin', browserFlow: { step: 'read', kind: 'admin', family: 'oidc' } },
  { operationId: 'listOwnAdminIdentities', method: 'get', path: '/api/auth/admin/identities', upstream: 'auth', body: 'none', caller: 'admin' },
  { operationId: 'startAdminIdentityLink', method: 'post', path: '/api/auth/admin/identities/:provider', upstream: 'auth', body: 'json', caller: 'admin', browserFlow: { step: 'set', kind: 'admin', family: 'oidc' }, proof: 'recent' },
  { operationId: 'unlinkAdminIdentity', method: 'delete', path: '/api/auth/admin/identities/:provider', upstream: 'auth', body: 'none', caller: 'admin', proof: 'recent' },
  { operationId: 'startIdentitySignIn', method: 'get', path: '/api/auth/user/oidc/:provider/start', upstream: 'auth', body: 'none', caller: 'anyone', browserFlow: { step: 'set', kind: 'user', family: 'oidc' } },
  { operationId: 'completeIdentitySignIn', method: 'get', path: '/api/auth/user/oidc/:provider/callback', upstream: 'auth', body: 'none', caller: 'anyone', cookieKind: 'user', browserFlow: { step: 'read', kind: 'user', family: 'oidc' } },
  { operationId: 'listOwnIdentities', method: 'get', path: '/api/auth/user/identities', upstream: 'auth', body: 'none', caller: 'user' },
  { operationId: 'startIdentityLink', method: 'post', path: '/api/auth/user/identities/:provider', upstream: 'auth', body: 'json', caller: 'user', browserFlow: { step: 'set', kind: 'user', family: 'oidc' }, proof: 'recent' },
  { operationId: 'unlinkIdentity', method: 'delete', path: '/api/auth/user/identities/:provider', upstream: 'auth', body: 'none', caller: 'user', proof: 'recent' },
  // A user's own profile, data, sessions and history.
  { operationId: 'getOwnProfile', method: 'get', path: '/api/auth/user/me', upstream: 'auth', body: 'none', caller: 'user' },
  { operationId: 'updateOwnProfile', method: 'put', path: '/api/auth/user/me', upstream: 'auth', body: 'json', caller: 'user' },
  { operationId: 'getOwnAvatar', method: 'get', path: '/api/auth/user/me/avatar', upstream: 'auth', body: 'none', caller: 'user', caching: 'private' },
  { operationId: 'replaceOwnAvatar', method: 'put', path: '/api/auth/user/me/avatar', upstream: 'auth', body: 'stream', caller: 'user' },
  { operationId: 'removeOwnAvatar', method: 'delete', path: '/api/auth/user/me/avatar', upstream: 'auth', body: 'none', caller: 'user' },
  { operationId: 'exportOwnData', method: 'get', path: '/api/auth/user/me/export', upstream: 'auth', body: 'none', caller: 'user' },
  { operationId: 'listOwnSessions', method: 'get', path: '/api/auth/user/sessions', upstream: 'auth', body: 'none', caller: 'user' },
  { operationId: 'listOwnActivity', method: 'get', path: '/api/auth/user/activity', upstream: 'auth', body: 'none', caller: 'user' },
  { operationId: 'signOutOtherSessions', method: 'post', path: '/api/auth/user/sessions/sign-out-others', upstream: 'auth', body: 'none', caller: 'user' },
  { operationId: 'signOutSession', method: 'delete', path: '/api/auth/user/sessions/:sessionId', upstream: 'auth', body: 'none', caller: 'user' },
  { operationId: 'listOwnApps', method: 'get', path: '/api/auth/user/apps', upstream: 'auth', body: 'none', caller: 'user' },
  { operationId: 'revokeOwnApp', method: 'delete', path: '/api/auth/user/apps/:appId', upstream: 'auth', body: 'none', caller: 'user' },
  // The admin console's reads and acts.
  { operationId: 'listUsers', method: 'get', path: '/api/admin/users', upstream: 'auth', body: 'none', caller: 'admin' },
  { operationId: 'getUser', method: 'get', path: '/api/admin/users/:userId', upstream: 'auth', body: 'none', caller: 'admin' },
  { operationId: 'updateUser', method: 'put', path: '/api/admin/users/:userId', upstream: 'auth', body: 'json', caller: 'admin', proof: 'recent', fresh: true },
  { operationId: 'deleteUser', method: 'delete', path: '/api/admin/users/:userId', upstream: 'auth', body: 'none', caller: 'admin', proof: 'recent', fresh: true },
  { operationId: 'replaceAvatar', method: 'put', path: '/api/admin/users/:userId/avatar', upstream: 'auth', body: 'stream', caller: 'admin', proof: 'recent', fresh: true },
  { operationId: 'getUserFactors', method: 'get', path: '/api/admin/users/:userId/factors', upstream: 'auth', body: 'none', caller: 'admin' },
  { operationId: 'resetUserFactors', method: 'delete', path: '/api/admin/users/:userId/factors', upstream: 'auth', body: 'none', caller: 'admin', proof: 'recent', fresh: true },
  { operationId: 'getAvatar', method: 'get', path: '/api/admin/users/:userId/avatar', upstream: 'auth', body: 'none', caller: 'admin', caching: 'private' },
  { operationId: 'listUserActivity', method: 'get', path: '/api/admin/users/:userId/activity', upstream: 'auth', body: 'none', caller: 'admin' },
  { operationId: 'listActivity', method: 'get', path: '/api/admin/activity', upstream: 'auth', body: 'none', caller: 'admin' },
  { operationId: 'listUserSessions', method: 'get', path: '/api/admin/users/:userId/sessions', upstream: 'auth', body: 'none', caller: 'admin' },
  { operationId: 'endUserSessions', method: 'delete', path: '/api/admin/users/:userId/sessions', upstream: 'auth', body: 'none', caller: 'admin', proof: 'recent', fresh: true },
  { operationId: 'endUserSession', method: 'delete', path: '/api/admin/users/:userId/sessions/:sessionId', upstream: 'auth', body: 'none', caller: 'admin', proof: 'recent', fresh: true },
  { operationId: 'listUserIdentities', method: 'get', path: '/api/admin/users/:userId/identities', upstream: 'auth', body: 'none', caller: 'admin' },
  { operationId: 'unlinkUserIdentity', method: 'delete', path: '/api/admin/users/:userId/identities/:provider', upstream: 'auth', body: 'none', caller: 'admin', proof: 'recent', fresh: true },
  { operationId: 'listAdmins', method: 'get', path: '/api/admin/admins', upstream: 'auth', body: 'none', caller: 'admin' },
  // The apps that sign people in through this service as an OpenID provider: registered, changed, given a new secret, deleted.
  { operationId: 'listApps', method: 'get', path: '/api/admin/apps', upstream: 'auth', body: 'none', caller: 'admin' },
  { operationId: 'registerApp', method: 'post', path: '/api/admin/apps', upstream: 'auth', body: 'json', caller: 'admin', proof: 'recent', fresh: true },
  { operationId: 'getApp', method: 'get', path: '/api/admin/apps/:appId', upstream: 'auth', body: 'none', caller: 'admin' },
  { operationId: 'updateApp', method: 'put', path: '/api/admin/apps/:appId', upstream: 'auth', body: 'json', caller: 'admin', proof: 'recent', fresh: true },
  { operationId: 'deleteApp', method: 'delete', path: '/api/admin/apps/:appId', upstream: 'auth', body: 'none', caller: 'admin', proof: 'recent', fresh: true },
  { operationId: 'rotateAppSecret', method: 'post', path: '/api/admin/apps/:appId/secret', upstream: 'auth', body: 'json', caller: 'admin', proof: 'recent', fresh: true },
  // The desktop releases, through auth (the admin's recent proof, the activity log) to desktop.
  { operationId: 'listDesktopReleases', method: 'get', path: '/api/admin/desktop/releases', upstream: 'auth', body: 'none', caller: 'admin' },
  { operationId: 'publishDesktopRelease', method: 'post', path: '/api/admin/desktop/releases', upstream: 'auth', body: 'json', caller: 'admin', evictsCached: true, proof: 'recent', fresh: true },
  { operationId: 'withdrawDesktopRelease', method: 'delete', path: '/api/admin/desktop/releases/:platform/:version', upstream: 'auth', body: 'none', caller: 'admin', evictsCached: true, proof: 'recent', fresh: true },
  // The desktop client's version check (public, cacheable) and sync.
  { operationId: 'latestVersion', method: 'get', path: '/api/desktop/latest-version', upstream: 'desktop', body: 'none', caller: 'anyone', caching: 'public' },
  // The access tokens' public keys, for other back ends to verify them (answered from memory).
  { operationId: 'keySet', method: 'get', path: '/.well-known/jwks.json', upstream: 'local', body: 'none', caller: 'anyone', caching: 'public' },
  // Ended sessions as server-sent events, for back ends with a feed token (answered from the gateway's feed).
  { operationId: 'revocationFeed', method: 'get', path: '/api/revocations', upstream: 'local', body: 'none', caller: 'feed' },
  { operationId: 'sync', method: 'post', path: '/api/desktop/sync', upstream: 'desktop', body: 'json', caller: 'user' },
] as const satisfies readonly RouteSpec[];

/** Every public route (the table above), read as plain rows. */
export const ROUTES: readonly RouteSpec[] = TABLE;

/** One row of the table, with its literal operation id, upstream and caller. */
export type RouteRow = (typeof TABLE)[number];

/** The operations a service answers, by id: its handlers are bound by these (operations.ts), so a missing or unknown one is a compile error. */
export type OperationId<S extends Upstream = Upstream> = Extract<RouteRow, { upstream: S }>['operationId'];

/** The path of an operation (its template, with `:name` parameters): the one place a path is written is its row. */
export function pathOf(operationId: OperationId, params: Record<string, string> = {}): string {
  const row = TABLE.find((r) => r.operationId === operationId)!;
  return row.path.replace(/:(\w+)/g, (whole, name: string) => (name in params ? encodeURIComponent(params[name]) : whole));
}

export { RouteMatcher, type RouteMatch } from './route-matcher';
export { OPENID_COOKIE_PREFIX, OPENID_PATHS, isOpenIdPath } from './openid';
