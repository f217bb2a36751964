// A small typed client of the public API, the only way the pages reach the service; any app on the
// same site can use it as is. It keeps the access token in memory only (the refresh token stays in
// its HttpOnly cookie), refreshes once when a call finds the token expired, and answers every call
// with a result, never a thrown error: `{ ok: true, data }` or `{ ok: false, error }` with the API's
// code (docs/errors.md), `network` when the service could not be reached.

export type AccountKind = 'user' | 'admin';

export interface ApiError {
  status: number;
  code: string;
  message: string;
  /** Field details on some 400s. */
  errors?: Record<string, string>;
  /** Seconds, from Retry-After (429, 503). */
  retryAfter?: number;
}

export type Result<T> = { ok: true; data: T; message: string } | { ok: false; error: ApiError };

export interface Account {
  id: string;
  avatar?: { contentType: string; size: number; updatedAt: string };
  name: string;
  email: string;
  role: string;
  disabled: boolean;
  emailVerified?: boolean;
  twoFactorEnabled?: boolean;
  createdAt: string;
  updatedAt: string;
}

export interface Challenge {
  /** The sign-in flow's id (`data.flow.id`), sent as `flow` by every step. */
  token: string;
  expiresIn: number;
  /** What the account may answer with; absent, the code mailed to an admin. */
  factors?: Array<'totp' | 'passkey' | 'recovery_code'>;
}

export type SignIn = { signedIn: true; account: Account } | { signedIn: false; challenge: Challenge };

export type SecondStepProof = { code: string } | { recovery_code: string };

export interface Session {
  id: string;
  current: boolean;
  createdAt: string;
  lastUsedAt: string;
  expiresAt: string;
  /** The address and User-Agent of the sign-in that opened it; null when not known. */
  ip: string | null;
  userAgent: string | null;
}

export interface Factors {
  totp: { enabled: boolean; pending: boolean; createdAt: string | null };
  /** `suspended`: added before the address was proven; it signs in by itself again once used as the second step after the password. */
  passkeys: Array<{ id: string; name: string; createdAt: string; lastUsedAt: string | null; suspended?: true }>;
  recoveryCodes: { remaining: number };
  passkeysAvailable: boolean;
  /** A removal of every second factor the mailbox confirmed, waiting out its delay (null: none). */
  pendingRecovery: { requestedAt: string; dueAt: string } | null;
}

export interface TotpEnrolment {
  secret: string;
  otpauthUrl: string;
  /** The otpauth URI as a PNG data URL, to scan. */
  qrCode: string;
}

export interface IdentityProvider {
  id: string;
  name: string;
  available: boolean;
  admins?: boolean;
}

export interface LinkedIdentity {
  provider: string;
  name: string;
  email: string | null;
  linkedAt: string;
}

export interface ActivityEntry {
  id: string;
  type: string;
  at: string;
  ip?: string;
  userAgent?: string;
  actor?: { kind: AccountKind; id?: string };
  details?: string[];
}

export interface ClientOptions {
  kind: AccountKind;
  /** The API's origin; the page's own by default. */
  base?: string;
  fetch?: typeof fetch;
  /** Called when a call finds the session over (ended elsewhere, expired) and no refresh brings it back: a console goes to sign-in. */
  onSignedOut?: () => void;
}

interface Envelope {
  success?: boolean;
  message?: string;
  code?: string;
  data?: Record<string, unknown>;
  errors?: Record<string, string>;
}

export class AccountClient {
  readonly kind: AccountKind;
  private readonly base: string;
  private readonly fetchImpl: typeof fetch;
  private accessToken: string | undefined;
  private refreshing: Promise<boolean> | undefined;
  private readonly onSignedOut?: () => void;

  constructor(options: ClientOptions) {
    this.kind = options.kind;
    this.onSignedOut = options.onSignedOut;
    this.base = (options.base ?? '').replace(/\/+$/, '');
    this.fetchImpl = options.fetch ?? ((input, init) => fetch(input, init));
  }

  get signedIn(): boolean {
    return this.accessToken !== undefined;
  }

  // ---- Signing in and out ----

  async login(email: string, password: string): Promise<Result<SignIn>> {
    const answer = await this.call('POST', `/api/auth/${this.kind}/login`, { email, password });
    return answer.ok ? { ...answer, data: this.signInFrom(answer.data) } : answer;
  }

  async verifyOtp(challenge: Challenge, proof: SecondStepProof): Promise<Result<SignIn>> {
    const answer = await this.call('POST', '/api/auth/verify-otp', { flow: challenge.token, ...proof });
    return answer.ok ? { ...answer, data: this.signInFrom(answer.data) } : answer;
  }

  /**
   * Signs in with a passkey alone: the browser asks for one of this site's passkeys (`ask` runs the
   * WebAuthn ceremony on the options, as `startAuthentication` does) and the API checks its answer.
   */
  async passkeySignIn(ask: (options: unknown) => Promise<unknown>): Promise<Result<SignIn>> {
    const started = await this.call('POST', `/api/auth/${this.kind}/passkey/options`);
    if (!started.ok) return started;
    const passkey = await askSafely(ask, started.data.options);
    if ('error' in passkey) return { ok: false, error: passkey.error };
    const answer = await this.call('POST', `/api/auth/${this.kind}/passkey/login`, { flow: (started.data.flow as { id: string }).id, passkey: passkey.answer });
    return answer.ok ? { ...answer, data: this.signInFrom(answer.data) } : answer;
  }

  /** Answers a pending second step with one of the account's passkeys. */
  async verifyWithPasskey(challenge: Challenge, ask: (options: unknown) => Promise<unknown>): Promise<Result<SignIn>> {
    const started = await this.call('POST', '/api/auth/verify-otp/passkey-options', { flow: challenge.token });
    if (!started.ok) return started;
    const passkey = await askSafely(ask, started.data.options);
    if ('error' in passkey) return { ok: false, error: passkey.error };
    const answer = await this.call('POST', '/api/auth/verify-otp', { flow: challenge.token, passkey: passkey.answer });
    return answer.ok ? { ...answer, data: this.signInFrom(answer.data) } : answer;
  }

  /** A second step none of whose factors the person holds: the account's address gets a link to confirm their removal (after a wait). */
  requestFactorRecovery(challenge: Challenge): Promise<Result<unknown>> {
    return this.call('POST', '/api/auth/verify-otp/recovery', { flow: challenge.token });
  }

  /** The identity providers this deployment offers (for sign-in buttons). */
  async identityProviders(): Promise<Result<IdentityProvider[]>> {
    const answer = await this.call('GET', '/api/auth/identity-providers');
    return answer.ok ? { ...answer, data: answer.data.providers as IdentityProvider[] } : answer;
  }

  /**
   * Where the browser goes to sign in with a provider (a top-level navigation, never fetch). It
   * comes back to `returnTo` (an app URL the service allows): signed in with nothing added (call
   * `refresh`), with `#challenge_token=…` for a second step (`challengeFromReturn`), or `?error=`.
   */
  identitySignInUrl(provider: string, returnTo: string): string {
    return `${this.base}/api/auth/${this.kind}/oidc/${encodeURIComponent(provider)}/start?returnTo=${encodeURIComponent(returnTo)}`;
  }

  register(fields: { name: string; email: string; password: string }): Promise<Result<{ user: Account }>> {
    return this.call('POST', `/api/auth/${this.kind}/register`, fields) as Promise<Result<{ user: Account }>>;
  }

  /** Uses the refresh cookie for a new access token: whether a session goes on. */
  refresh(): Promise<boolean> {
    this.refreshing ??= this.call('POST', `/api/auth/${this.kind}/refresh`)
      .then((answer) => {
        if (answer.ok) this.accessToken = String(answer.data.accessToken);
        else if (answer.error.status === 401) this.accessToken = undefined;
        return answer.ok;
      })
      .finally(() => (this.refreshing = undefined));
    return this.refreshing;
  }

  async logout(): Promise<Result<Record<string, never>>> {
    const answer = await this.call('POST', `/api/auth/${this.kind}/logout`);
    this.accessToken = undefined;
    return answer as Result<Record<string, never>>;
  }

  // ---- Passwords and mailed links ----

  forgotPassword(email: string): Promise<Result<unknown>> {
    return this.call('POST', `/api/auth/${this.kind}/forgot-password`, { email });
  }

  resetPassword(token: string, newPassword: string): Promise<Result<unknown>> {
    return this.call('POST', `/api/auth/${this.kind}/reset-password`, { token, newPassword });
  }

  /** A mailed link's action: prove the address, confirm a new one, undo a change, or confirm a removal of the second factors. */
  followEmailLink(action: 'verify' | 'confirm' | 'undo' | 'recover', token: string): Promise<Result<unknown>> {
    const path = { verify: '/api/auth/user/verify-email', confirm: '/api/auth/user/email/confirm', undo: '/api/auth/user/email/undo', recover: '/api/auth/factor-recovery/confirm' }[action];
    return this.call('POST', path, { token });
  }

  resendVerification(email: string): Promise<Result<unknown>> {
    return this.call('POST', '/api/auth/user/verify-email/resend', { email });
  }

  // ---- The signed-in account ----

  /** The signed-in user (admins have no such read). */
  async me(): Promise<Result<Account>> {
    const answer = await this.authorized('GET', '/api/auth/user/me');
    return answer.ok ? { ...answer, data: answer.data.user as Account } : answer;
  }

  /** Asks to move to another address (a confirmation link goes there); the same answer whether it is free or taken. */
  changeEmail(newEmail: string, password: string): Promise<Result<unknown>> {
    return this.authorized('POST', '/api/auth/user/email', password ? { newEmail, password } : { newEmail });
  }

  /** Deletes the signed-in account for good; every session ends and the cookie is cleared. */
  async deleteAccount(password: string): Promise<Result<unknown>> {
    const answer = await this.authorized('DELETE', `/api/auth/${this.kind}/me`, password ? { password } : {});
    if (answer.ok) this.accessToken = undefined;
    return answer;
  }

  /** The user's own picture, when it has one. */
  async avatar(): Promise<Result<Blob>> {
    return this.download('/api/auth/user/me/avatar');
  }

  /** Changes the signed-in user's name (the address and the password have their own calls). */
  async updateProfile(name: string): Promise<Result<Account>> {
    const answer = await this.authorized('PUT', '/api/auth/user/me', { name });
    return answer.ok ? { ...answer, data: answer.data.user as Account } : answer;
  }

  /** Replaces the user's picture with an image file (PNG, JPEG or WebP, at most 2 MiB; the service reads the type from its bytes). */
  async replaceAvatar(image: Blob): Promise<Result<Account>> {
    const form = new FormData();
    form.append('avatar', image, image instanceof File ? image.name : 'avatar');
    const answer = await this.authorized('PUT', '/api/auth/user/me/avatar', form);
    return answer.ok ? { ...answer, data: answer.data.user as Account } : answer;
  }

  async removeAvatar(): Promise<Result<Account>> {
    const answer = await this.authorized('DELETE', '/api/auth/user/me/avatar');
    return answer.ok ? { ...answer, data: answer.data.user as Account } : answer;
  }

  async changePassword(currentPassword: string, newPassword: string): Promise<Result<unknown>> {
    const answer = await this.authorized('POST', `/api/auth/${this.kind}/password`, { currentPassword, newPassword });
    // Every other session ended; this one goes on with the new token.
    if (answer.ok && typeof answer.data.accessToken === 'string') this.accessToken = answer.data.accessToken;
    return answer;
  }

  /** What happened to the account, newest first; `cursor` is the previous page's `nextCursor`. */
  async activity(cursor?: string): Promise<Result<{ activity: ActivityEntry[]; nextCursor: string | null }>> {
    const answer = await this.authorized('GET', `/api/auth/user/activity?limit=10${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    return answer as unknown as Result<{ activity: ActivityEntry[]; nextCursor: string | null }>;
  }

  async sessions(): Promise<Result<Session[]>> {
    const answer = await this.authorized('GET', '/api/auth/user/sessions');
    return answer.ok ? { ...answer, data: answer.data.sessions as Session[] } : answer;
  }

  endSession(id: string): Promise<Result<unknown>> {
    return this.authorized('DELETE', `/api/auth/user/sessions/${encodeURIComponent(id)}`);
  }

  signOutOthers(): Promise<Result<unknown>> {
    return this.authorized('POST', '/api/auth/user/sessions/sign-out-others');
  }

  async identities(): Promise<Result<{ identities: LinkedIdentity[]; providers: IdentityProvider[] }>> {
    return (await this.authorized('GET', `/api/auth/${this.kind}/identities`)) as unknown as Result<{ identities: LinkedIdentity[]; providers: IdentityProvider[] }>;
  }

  /** Starts linking a provider (needs a recent proof); answers the URL to send the browser to. */
  async linkIdentity(provider: string, returnTo: string): Promise<Result<string>> {
    const answer = await this.authorized('POST', `/api/auth/${this.kind}/identities/${encodeURIComponent(provider)}`, { returnTo });
    return answer.ok ? { ...answer, data: String(answer.data.authorizationUrl) } : answer;
  }

  unlinkIdentity(provider: string): Promise<Result<unknown>> {
    return this.authorized('DELETE', `/api/auth/${this.kind}/identities/${encodeURIComponent(provider)}`);
  }

  // ---- Second factors (changes need a recent proof: `step_up_required`, then reauthenticate) ----

  async factors(): Promise<Result<Factors>> {
    const answer = await this.authorized('GET', `/api/auth/${this.kind}/factors`);
    return answer.ok ? { ...answer, data: { ...(answer.data.factors as Omit<Factors, 'pendingRecovery'>), pendingRecovery: (answer.data.recovery as Factors['pendingRecovery']) ?? null } } : answer;
  }

  /** Cancels a removal of the second factors that the mailbox confirmed. */
  cancelFactorRecovery(): Promise<Result<unknown>> {
    return this.authorized('DELETE', `/api/auth/${this.kind}/factor-recovery`);
  }

  /** A fresh proof of the password or an app code, for the changes that ask for one. */
  reauthenticate(proof: { password: string } | { code: string }): Promise<Result<unknown>> {
    return this.authorized('POST', `/api/auth/${this.kind}/reauthenticate`, proof);
  }

  startTotp(): Promise<Result<TotpEnrolment>> {
    return this.authorized('POST', `/api/auth/${this.kind}/factors/totp`) as Promise<Result<TotpEnrolment>>;
  }

  /** The app's first code; the account's first factor answers its recovery codes, shown this once. */
  async confirmTotp(code: string): Promise<Result<{ recoveryCodes?: string[] }>> {
    return (await this.authorized('POST', `/api/auth/${this.kind}/factors/totp/confirm`, { code })) as Result<{ recoveryCodes?: string[] }>;
  }

  removeTotp(): Promise<Result<unknown>> {
    return this.authorized('DELETE', `/api/auth/${this.kind}/factors/totp`);
  }

  newRecoveryCodes(): Promise<Result<{ recoveryCodes: string[] }>> {
    return this.authorized('POST', `/api/auth/${this.kind}/factors/recovery-codes`) as Promise<Result<{ recoveryCodes: string[] }>>;
  }

  /** Adds a passkey: the browser makes one on the options (`create`, as `startRegistration` does). */
  async addPasskey(name: string, create: (options: unknown) => Promise<unknown>): Promise<Result<unknown>> {
    const started = await this.authorized('POST', `/api/auth/${this.kind}/factors/passkeys/options`);
    if (!started.ok) return started;
    const passkey = await askSafely(create, started.data.options);
    if ('error' in passkey) return { ok: false, error: passkey.error };
    return this.authorized('POST', `/api/auth/${this.kind}/factors/passkeys`, { name, passkey: passkey.answer });
  }

  removePasskey(id: string): Promise<Result<unknown>> {
    return this.authorized('DELETE', `/api/auth/${this.kind}/factors/passkeys/${encodeURIComponent(id)}`);
  }

  /** One's own data, as the file the API answers. */
  exportData(): Promise<Result<Blob>> {
    return this.download('/api/auth/user/me/export');
  }

  private async download(path: string, retried = false): Promise<Result<Blob>> {
    const res = await this.send('GET', path, undefined, true);
    if (!res.ok) return { ok: false, error: res.error };
    if (res.response.status === 401 && !retried && (await this.refresh())) return this.download(path, true);
    if (res.response.status === 401) return this.signedOut({ ok: false, error: await errorOf(res.response) });
    if (!res.response.ok) return { ok: false, error: await errorOf(res.response) };
    return { ok: true, data: await res.response.blob(), message: '' };
  }

  // ---- The wire ----

  private signInFrom(data: Record<string, unknown>): SignIn {
    if (data.requires_2fa) {
      const factors = data.factors as Challenge['factors'];
      // The flow's id: the one kind of token every step of a sign-in is followed by (the contract's `challenge_token` is the same).
      const flow = data.flow as { id: string };
      return { signedIn: false, challenge: { token: flow.id, expiresIn: Number(data.expires_in), ...(factors ? { factors } : {}) } };
    }
    this.accessToken = String(data.accessToken);
    return { signedIn: true, account: (data.user ?? data.admin) as Account };
  }

  /** A call with the access token; an expired one is refreshed once and the call made again. */
  protected async authorized(method: string, path: string, body?: unknown): Promise<Result<Record<string, unknown>>> {
    if (!this.accessToken && !(await this.refresh())) return this.signedOut({ ok: false, error: { status: 401, code: 'unauthorized', message: 'Not signed in' } });
    const first = await this.call(method, path, body, true);
    if (first.ok || first.error.status !== 401 || first.error.code === 'step_up_required') return first;
    return (await this.refresh()) ? this.call(method, path, body, true) : this.signedOut(first);
  }

  /** The session is over and no refresh brought it back: the page is told (it leaves the account off screen). */
  private signedOut<T>(answer: T): T {
    this.onSignedOut?.();
    return answer;
  }

  private async call(method: string, path: string, body?: unknown, withToken = false): Promise<Result<Record<string, unknown>>> {
    const res = await this.send(method, path, body, withToken);
    if (!res.ok) return res;
    if (!res.response.ok) return { ok: false, error: await errorOf(res.response) };
    const envelope = (await res.response.json().catch(() => ({}))) as Envelope;
    return { ok: true, data: envelope.data ?? {}, message: envelope.message ?? '' };
  }

  private async send(method: string, path: string, body: unknown, withToken: boolean): Promise<{ ok: true; response: Response } | { ok: false; error: ApiError }> {
    const headers: Record<string, string> = { accept: 'application/json' };
    // A form (a file upload) carries its own multipart type and boundary.
    const form = typeof FormData !== 'undefined' && body instanceof FormData;
    if (body !== undefined && !form) headers['content-type'] = 'application/json';
    if (withToken && this.accessToken) headers.authorization = `Bearer ${this.accessToken}`;
    try {
      const response = await this.fetchImpl(`${this.base}${path}`, {
        method,
        headers,
        credentials: 'include',
        body: body === undefined ? undefined : form ? body : JSON.stringify(body),
      });
      return { ok: true, response };
    } catch {
      return { ok: false, error: { status: 0, code: 'network', message: 'The service could not be reached' } };
    }
  }
}

/** The second step a provider's sign-in came back with, from the page's fragment (`#challenge_token=…&flow=…&factors=…&expires_in=…`). */
export function challengeFromReturn(fragment: string): Challenge | undefined {
  const params = new URLSearchParams(fragment.replace(/^#/, ''));
  const token = params.get('flow') ?? params.get('challenge_token');
  if (!token) return undefined;
  const factors = (params.get('factors') ?? '').split(',').filter((f): f is 'totp' | 'passkey' | 'recovery_code' => ['totp', 'passkey', 'recovery_code'].includes(f));
  const expiresIn = Number(params.get('expires_in')) || 300;
  // `email_code` (an admin's mailed code) is the challenge without factors of its own.
  return { token, expiresIn, ...(factors.length ? { factors } : {}) };
}

/** The browser's part of a WebAuthn ceremony; a refusal (the person cancelled, no passkey) is an error `passkey_cancelled`. */
async function askSafely(ask: (options: unknown) => Promise<unknown>, options: unknown): Promise<{ answer: unknown } | { error: ApiError }> {
  try {
    return { answer: await ask(options) };
  } catch (err) {
    return { error: { status: 0, code: 'passkey_cancelled', message: err instanceof Error ? err.message : String(err) } };
  }
}

async function errorOf(response: Response): Promise<ApiError> {
  const envelope = (await response.json().catch(() => ({}))) as Envelope;
  const retry = Number(response.headers.get('retry-after'));
  return {
    status: response.status,
    code: envelope.code ?? 'internal_error',
    message: envelope.message ?? response.statusText,
    ...(envelope.errors ? { errors: envelope.errors } : {}),
    ...(Number.isFinite(retry) && retry > 0 ? { retryAfter: retry } : {}),
  };
}
