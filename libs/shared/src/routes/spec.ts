// What a row of the route table (index.ts) says of a route.
import type { AccountKind } from '../access-token';

/** Where a route is answered: a service, or the gateway itself from memory (`local`). */
export type Upstream = 'auth' | 'desktop' | 'local';

/**
 * Who may call a route: `anyone` (no access token, or one it reads only to grant more, as admin
 * registration does), the access token of a `user` or an `admin` session (the gateway refuses one of
 * an ended session, 401 `session_revoked`; the service refuses the other kind, 403), or a back end
 * with a revocation `feed` token.
 */
export type Caller = 'anyone' | AccountKind | 'feed';

export interface RouteSpec {
  /** The operation's id in openapi/openapi.yaml. */
  operationId: string;
  method: 'get' | 'post' | 'put' | 'delete';
  path: string;
  upstream: Upstream;
  /** json: read whole (up to BODY_LIMIT) and sent in one write; stream: piped with a byte cap (uploads); none: no body. */
  body: 'json' | 'stream' | 'none';
  caller: Caller;
  /**
   * Who may keep its answers: `public` caches (the version check, the key set), or the caller's
   * browser, revalidating each use (`private`: an avatar). Without it, nothing keeps an answer: auth's
   * dispatcher sends `Cache-Control: no-store` on every answer of the route, errors included.
   */
  caching?: 'public' | 'private';
  /** A change that can make the `public` answers the gateway holds stale (a release published or withdrawn): they are dropped once the service accepts it. */
  evictsCached?: boolean;
  /** The kind whose refresh cookie this route may set or clear. */
  cookieKind?: AccountKind;
  /** Whether the route reads the refresh cookie (passed to the service out of band). */
  readsCookie?: boolean;
  /** The service's answer names the kind whose cookie it sets (verify-otp serves both); `cookieKind` when it does not. */
  cookieKindFromAnswer?: boolean;
  /**
   * A flow bound to the browser that started it by a cookie of its own, `Path=/api/auth/<kind>/<family>`
   * (a sign-in with an identity provider, `oidc`; a sign-in by email, `email-sign-in`): `set` starts
   * one (the cookie set), `read` ends it (the cookie read, then cleared when the service says).
   */
  browserFlow?: { step: 'set' | 'read'; kind: AccountKind; family: BrowserFlowFamily };
  /** The kind's trusted-browser cookie (`Path=/api/auth/<kind>/login`): a login `read`s it, a second step may `set` it (for the kind its answer names). */
  trustedBrowser?: 'read' | 'set';
  /**
   * The proof an act needs beyond a live session (test/repo/route-proof.test.ts holds every row that
   * changes a credential, an address, a role, a way in or another account to one): `recent`, the
   * session proved the password or a factor in the last STEP_UP_SECONDS (the dispatcher applies it,
   * 403 `step_up_required`; on admin registration, a granting admin token must carry it);
   * `password-or-recent`, the body's current password or that recent proof (the use case reads the body).
   */
  proof?: 'recent' | 'password-or-recent';
  /**
   * Where abuse starts (a sign-up, a password tried, a mail sent to an address the caller names): with
   * BOT_CHECK on, the body's `botCheck` must carry a solved challenge, or the widget's token (the
   * service's dispatcher checks it before the handler, 400 `bot_check_failed`). test/repo/route-proof
   * holds which rows carry it.
   */
  botCheck?: true;
  /** Also read the session from the store, not only the revocation feed: an admin's act on another account must not ride on the second a feed may take. */
  fresh?: boolean;
  /**
   * Answered by a protocol library, not by an operation (`openid`: this service as an OpenID
   * provider, everything under /oidc/ and the discovery document): its own cookies (named `oidc_*`)
   * and protocol headers pass both ways as they are; no refresh cookie ever does.
   */
  protocol?: 'openid';
}

/** The kinds of browser-bound flow, each with its own cookie under its routes. */
export type BrowserFlowFamily = 'oidc' | 'email-sign-in';

/** Whether the route acts on a session's access token: one of an ended session is refused at the gateway. */
export const actsOnSession = (route: Pick<RouteSpec, 'caller'>): boolean => route.caller === 'user' || route.caller === 'admin';
