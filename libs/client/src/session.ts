// The session a client keeps: the access token in memory only (the refresh token stays in its
// HttpOnly cookie, which the browser sends), refreshed before it expires and once when a call that
// carried it is answered 401 `unauthorized` or `session_revoked`. It sits under the generated client
// as one middleware and one fetch: the middleware puts the token on the operations whose security
// names it (`bearerOperations`, from the contract), the fetch makes such a call again after a refresh.
import type { Middleware } from 'openapi-fetch';
import { bearerOperations, optionalBearerOperations } from './openapi';

/** The 401 codes that say the token, not the request, is the trouble: a refresh may fix them. */
const REFRESHABLE = new Set(['unauthorized', 'session_revoked']);

export interface SessionOptions {
  /** Asks for a new access token with the refresh cookie; answers it, or undefined when the session is over. */
  renew: () => Promise<{ accessToken: string; expiresIn: number } | undefined>;
  fetch: (request: Request) => Promise<Response>;
  /** Refresh at this share of the token's life (0.8); 0 turns the timer off (a refresh on the next 401 then). */
  refreshAt: number;
  /** The session is over and no refresh brought it back (ended elsewhere, expired). */
  onSignedOut?: () => void;
}

export class SessionKeeper {
  private accessToken: string | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private refreshing: Promise<boolean> | undefined;
  /** The requests the middleware gave the token: only their 401 can mean it expired. */
  private readonly carried = new WeakSet<Request>();

  constructor(private readonly options: SessionOptions) {}

  get signedIn(): boolean {
    return this.accessToken !== undefined;
  }

  /** The token in use, for a call made outside the client (an `<img>`'s blob, a WebSocket). */
  get token(): string | undefined {
    return this.accessToken;
  }

  /** Keeps a session's token and plans its refresh. */
  keep(accessToken: string, expiresIn: number): void {
    this.accessToken = accessToken;
    this.plan(expiresIn);
  }

  /** Forgets the token (a logout, a deletion, a refused refresh). */
  forget(): void {
    this.accessToken = undefined;
    this.plan(undefined);
  }

  /** One refresh at a time however many calls ask; whether the session goes on. */
  refresh(): Promise<boolean> {
    this.refreshing ??= this.options
      .renew()
      .then((renewed) => {
        if (renewed) this.keep(renewed.accessToken, renewed.expiresIn);
        else this.forget();
        return renewed !== undefined;
      })
      .finally(() => (this.refreshing = undefined));
    return this.refreshing;
  }

  /**
   * Puts the token on the operations the contract says take it; with none yet, a refresh first (a
   * reload keeps the cookie). One that takes it only if there is one (the first admin's
   * registration) goes without it.
   */
  readonly middleware: Middleware = {
    onRequest: async ({ request, schemaPath }) => {
      const operation = `${request.method} ${schemaPath}`;
      if (!bearerOperations.has(operation)) return undefined;
      if (!this.accessToken && optionalBearerOperations.has(operation)) return undefined;
      if (!this.accessToken && !(await this.refresh())) {
        this.options.onSignedOut?.();
        // Answered here, as the service would: a call it can only refuse is not sent.
        return new Response(JSON.stringify({ success: false, message: 'Not signed in', code: 'unauthorized' }), { status: 401, headers: { 'content-type': 'application/json' } });
      }
      const authorized = withToken(request, this.accessToken!);
      this.carried.add(authorized);
      return authorized;
    },
  };

  /** The generated client's fetch: a call that carried the token and found it refused is refreshed once and made again. */
  readonly fetch = async (request: Request): Promise<Response> => {
    if (!this.carried.has(request)) return this.options.fetch(request);
    const again = request.clone();
    const response = await this.options.fetch(request);
    if (response.status !== 401) return response;
    const code = await response
      .clone()
      .json()
      .then((body: unknown) => (body as { code?: unknown } | null)?.code, () => undefined);
    // A 401 `step_up_required` asks for a recent proof, which no refresh gives.
    if (typeof code !== 'string' || !REFRESHABLE.has(code)) return response;
    // Refreshed since this call left (another call's refusal came first, and its refresh is done):
    // made again with the new token, not refreshed a second time.
    const carried = request.headers.get('authorization');
    if (this.accessToken && carried !== `Bearer ${this.accessToken}`) return this.options.fetch(withToken(again, this.accessToken));
    if (!(await this.refresh())) {
      this.options.onSignedOut?.();
      return response;
    }
    return this.options.fetch(withToken(again, this.accessToken!));
  };

  private plan(expiresIn: number | undefined): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    if (expiresIn === undefined || this.options.refreshAt <= 0) return;
    this.timer = setTimeout(() => void this.refresh(), Math.max(100, expiresIn * this.options.refreshAt * 1000));
    // In Node, a planned refresh does not keep a finished program running.
    (this.timer as { unref?: () => void }).unref?.();
  }
}

function withToken(request: Request, token: string): Request {
  const headers = new Headers(request.headers);
  headers.set('authorization', `Bearer ${token}`);
  return new Request(request, { headers });
}
