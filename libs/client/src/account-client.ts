// The account API for an app: every route of the contract typed from openapi/openapi.yaml (`api`,
// the generated client), and the acts an app uses most as methods that answer a result, never a
// thrown error: `{ ok: true, data, message }` or `{ ok: false, error }` with the API's code
// (docs/errors.md), `network` when the service could not be reached. The session is kept for the
// app (session.ts): the access token in memory, refreshed before expiry and once on a 401.
import createClient, { type Client } from 'openapi-fetch';
import type { components, paths } from './openapi';
import { SessionKeeper } from './session';

type Schemas = components['schemas'];

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

/** A user or an admin as the API answers them. */
export type Account = Schemas['AccountBase'] & Partial<Omit<Schemas['User'], 'role'>> & { twoFactorEnabled?: boolean };
export type Session = Schemas['Session'];
export type IdentityProvider = Schemas['IdentityProvider'];
export type SignInMethods = Schemas['SignInMethods'];
/** An app with access to the account, as /account lists it. */
export type AppAccess = NonNullable<paths['/api/auth/user/apps']['get']['responses'][200]['content']['application/json']['data']>['apps'][number];
export type TrustedBrowser = Schemas['TrustedBrowser'];
export type ActivityEntry = Schemas['ActivityEntry'];
export type SecondFactorMethod = NonNullable<NonNullable<Schemas['SecondStepRequired']['data']>['factors']>[number];

export interface Challenge {
  /** The sign-in flow's id (`data.flow.id`), sent as `flow` by every step. */
  token: string;
  expiresIn: number;
  /** What the account may answer with; absent, the code mailed to an admin. */
  factors?: SecondFactorMethod[];
}

export type SignIn = { signedIn: true; account: Account } | { signedIn: false; challenge: Challenge };
/** A sign-in by email asked for: the flow its code goes with, and the seconds its mail works. */
export interface EmailSignIn {
  flow: string;
  expiresIn: number;
}
export type SecondStepProof = { code: string } | { recovery_code: string };

export type FactorEntry = Schemas['FactorEntry'];
export type PasswordProblem = 'too_short' | 'too_long' | 'too_common';
export type Factors = Schemas['FactorList'] & {
  /** A removal of every second factor the mailbox confirmed, waiting out its delay (null: none). */
  pendingRecovery: { requestedAt: string; dueAt: string } | null;
  /** Whether the account has a password (false: it signs in without one; forgot-password sets one). */
  password: boolean;
};

export interface ClientOptions {
  kind: AccountKind;
  /** The API's origin; the page's own by default. */
  base?: string;
  fetch?: (request: Request) => Promise<Response>;
  /** Refresh at this share of the access token's life (0.8 by default); 0 refreshes on a 401 alone. */
  refreshAt?: number;
  /** Called when a call finds the session over (ended elsewhere, expired) and no refresh brings it back: a console goes to sign-in. */
  onSignedOut?: () => void;
  /**
   * The answer to the deployment's bot check (`BOT_CHECK`), asked before each call that needs one
   * (login, register, forgot-password, sign-in by email): a solved ALTCHA challenge of `botChallenge()`,
   * or a widget's token; undefined sends none (right while the check is off).
   */
  botCheck?: () => Promise<string | undefined>;
}

/** The ends of the paths the contract has for both kinds (`/login`: `/api/auth/user/login` and `/api/auth/admin/login`). */
type KindSuffix = { [P in keyof paths]: P extends `/api/auth/user${infer S}` ? (`/api/auth/admin${S}` extends keyof paths ? S : never) : never }[keyof paths];

/** What an operation's 2xx answer carries under `data`. */
export type DataOf<D> = NonNullable<D extends { data?: infer X } ? X : never>;
type Answer<D> = Promise<{ data?: D; error?: unknown; response: Response }>;

export class AccountClient {
  readonly kind: AccountKind;
  private readonly base: string;
  /**
   * Every route of the contract, typed from openapi/openapi.yaml (openapi-fetch): paths, parameters,
   * bodies and answers are checked by the compiler. The session's token goes with the calls whose
   * security names it, and is refreshed as the methods' calls are.
   */
  readonly api: Client<paths>;
  protected readonly session: SessionKeeper;
  private readonly botCheck?: () => Promise<string | undefined>;

  constructor(options: ClientOptions) {
    this.kind = options.kind;
    this.botCheck = options.botCheck;
    this.base = (options.base ?? (globalThis as { location?: { origin: string } }).location?.origin ?? '').replace(/\/+$/, '');
    const fetchImpl = options.fetch ?? ((request: Request) => fetch(request));
    this.session = new SessionKeeper({
      fetch: fetchImpl,
      refreshAt: options.refreshAt ?? 0.8,
      onSignedOut: options.onSignedOut,
      renew: async () => {
        const answer = await this.settle(this.api.POST(this.own('/refresh')));
        return answer.ok ? { accessToken: answer.data.accessToken, expiresIn: answer.data.expiresIn } : undefined;
      },
    });
    this.api = createClient<paths>({
      baseUrl: this.base,
      credentials: 'include',
      headers: { accept: 'application/json' },
      fetch: this.session.fetch,
    });
    this.api.use(this.session.middleware);
  }

  get signedIn(): boolean {
    return this.session.signedIn;
  }

  /** The access token in use, for a call made outside the client. */
  get accessToken(): string | undefined {
    return this.session.token;
  }

  // ---- Signing in and out ----

  async login(email: string, password: string): Promise<Result<SignIn>> {
    return this.signIn(this.api.POST(this.own('/login'), { body: { email, password, ...(await this.botAnswer()) } }));
  }

  /** The bot check's answer for a body, when the page gave a way to make one. */
  private async botAnswer(): Promise<{ botCheck?: string }> {
    const answer = await this.botCheck?.();
    return answer ? { botCheck: answer } : {};
  }

  /** What the bot check needs (`BOT_CHECK`): nothing, a challenge to solve (ALTCHA), or a widget's site key and script. */
  async botChallenge(): Promise<Result<{ kind: 'off' | 'altcha' | 'turnstile' | 'hcaptcha'; challenge?: unknown; siteKey?: string; script?: string }>> {
    return this.settle(this.api.GET('/api/auth/bot-check'));
  }

  /** Answers a pending second step; `trustBrowser`: this browser skips it after the password for the deployment's days. */
  verifyOtp(challenge: Challenge, proof: SecondStepProof, options: { trustBrowser?: boolean } = {}): Promise<Result<SignIn>> {
    return this.signIn(this.api.POST('/api/auth/verify-otp', { body: { flow: challenge.token, ...proof, ...trusting(options) } }));
  }

  /**
   * Signs in with a passkey alone: the browser asks for one of this site's passkeys (`ask` runs the
   * WebAuthn ceremony on the options, as `startAuthentication` does) and the API checks its answer.
   */
  async passkeySignIn(ask: (options: unknown) => Promise<unknown>): Promise<Result<SignIn>> {
    const started = await this.settle(this.api.POST(this.own('/passkey/options')));
    if (!started.ok) return started;
    const passkey = await askSafely(ask, started.data.options);
    if ('error' in passkey) return { ok: false, error: passkey.error };
    return this.signIn(this.api.POST(this.own('/passkey/login'), { body: { flow: started.data.flow.id, passkey: passkey.answer as Schemas['PasskeyAnswer'] } }));
  }

  /** Answers a pending second step with one of the account's passkeys. */
  async verifyWithPasskey(challenge: Challenge, ask: (options: unknown) => Promise<unknown>, options: { trustBrowser?: boolean } = {}): Promise<Result<SignIn>> {
    const started = await this.settle(this.api.POST('/api/auth/verify-otp/passkey-options', { body: { flow: challenge.token } }));
    if (!started.ok) return started;
    const passkey = await askSafely(ask, started.data.options);
    if ('error' in passkey) return { ok: false, error: passkey.error };
    return this.signIn(this.api.POST('/api/auth/verify-otp', { body: { flow: challenge.token, passkey: passkey.answer as Schemas['PasskeyAnswer'], ...trusting(options) } }));
  }

  /** A second step none of whose factors the person holds: the account's address gets a link to confirm their removal (after a wait). */
  requestFactorRecovery(challenge: Challenge): Promise<Result<unknown>> {
    return this.settle(this.api.POST('/api/auth/verify-otp/recovery', { body: { flow: challenge.token } }));
  }

  /**
   * Asks for a sign-in by mail, without a password: a link for this browser and a code for this
   * device. Answers the flow the code goes with (the browser's cookie holds it for the link) and how
   * long the mail works; the same whether or not the address has an account.
   */
  async requestEmailSignIn(email: string): Promise<Result<EmailSignIn>> {
    const answer = await this.settle(this.api.POST(this.own('/email-sign-in'), { body: { email, ...(await this.botAnswer()) } }));
    return this.pick(answer, (data) => ({ flow: data.flow.id, expiresIn: data.expires_in }));
  }

  /** Signs in with the mailed link's token (the `email_sign_in` parameter of the page it opens), in the browser that asked. */
  emailLinkSignIn(token: string): Promise<Result<SignIn>> {
    return this.signIn(this.api.POST(this.own('/email-sign-in/link'), { body: { token } }));
  }

  /** Signs in with the mailed code, on the device that asked (`flow`: what `requestEmailSignIn` answered). */
  emailCodeSignIn(flow: string, code: string): Promise<Result<SignIn>> {
    return this.signIn(this.api.POST(this.own('/email-sign-in/code'), { body: { flow, code } }));
  }

  /**
   * What this client's kind may sign in with beside the password (a passkey alone, a mailed link or
   * code, a sign-up by mail), and `firstAdmin`: no admin exists yet (a first-run page creates one).
   */
  async signInMethods(): Promise<Result<SignInMethods & { firstAdmin: boolean; trustedBrowserDays: number; botCheck: 'off' | 'altcha' | 'turnstile' | 'hcaptcha' }>> {
    return this.pick(await this.settle(this.api.GET('/api/auth/sign-in-methods')), (data) => ({
      ...data[this.kind],
      firstAdmin: data.firstAdmin,
      trustedBrowserDays: data.trustedBrowserDays,
      botCheck: data.botCheck,
    }));
  }

  /** The identity providers this deployment offers (for sign-in buttons). */
  async identityProviders(): Promise<Result<IdentityProvider[]>> {
    return this.pick(await this.settle(this.api.GET('/api/auth/identity-providers')), (data) => data.providers);
  }

  /**
   * Where the browser goes to sign in with a provider (a top-level navigation, never fetch). It
   * comes back to `returnTo` (an app URL the service allows): signed in with nothing added (call
   * `refresh`), with `#flow=…` for a second step (`challengeFromReturn`), or `?error=`.
   */
  identitySignInUrl(provider: string, returnTo: string): string {
    return `${this.base}/api/auth/${this.kind}/oidc/${encodeURIComponent(provider)}/start?returnTo=${encodeURIComponent(returnTo)}`;
  }

  /** Registers an account of this client's kind (an admin only while the deployment takes one; the answer names it `admin`). */
  async register(fields: { name: string; email: string; password: string }): Promise<Result<{ user: Account }>> {
    return this.settle(this.api.POST(this.own('/register'), { body: { ...fields, ...(await this.botAnswer()) } })) as Promise<Result<{ user: Account }>>;
  }

  /** The rules a new password does not meet yet (`too_short`, `too_long`, `too_common`), for a form that shows them as they are met. */
  checkPassword(password: string): Promise<Result<{ acceptable: boolean; problems: PasswordProblem[]; screened: boolean }>> {
    return this.settle(this.api.POST('/api/auth/password-check', { body: { password } }));
  }

  /** Uses the refresh cookie for a new access token: whether a session goes on. */
  refresh(): Promise<boolean> {
    return this.session.refresh();
  }

  async logout(): Promise<Result<unknown>> {
    const answer = await this.settle(this.api.POST(this.own('/logout')));
    this.session.forget();
    return answer;
  }

  // ---- Passwords and mailed links ----

  async forgotPassword(email: string): Promise<Result<unknown>> {
    return this.settle(this.api.POST(this.own('/forgot-password'), { body: { email, ...(await this.botAnswer()) } }));
  }

  resetPassword(token: string, newPassword: string): Promise<Result<unknown>> {
    return this.settle(this.api.POST(this.own('/reset-password'), { body: { token, newPassword } }));
  }

  /** A mailed link's action: prove the address, confirm a new one, undo a change, or confirm a removal of the second factors. */
  followEmailLink(action: 'verify' | 'confirm' | 'undo' | 'recover', token: string): Promise<Result<unknown>> {
    const body = { body: { token } };
    switch (action) {
      case 'verify':
        return this.settle(this.api.POST('/api/auth/user/verify-email', body));
      case 'confirm':
        return this.settle(this.api.POST('/api/auth/user/email/confirm', body));
      case 'undo':
        return this.settle(this.api.POST('/api/auth/user/email/undo', body));
      case 'recover':
        return this.settle(this.api.POST('/api/auth/factor-recovery/confirm', body));
    }
  }

  async resendVerification(email: string): Promise<Result<unknown>> {
    return this.settle(this.api.POST('/api/auth/user/verify-email/resend', { body: { email, ...(await this.botAnswer()) } }));
  }

  // ---- The signed-in account ----

  /** The signed-in user (admins have no such read). */
  async me(): Promise<Result<Account>> {
    return this.pick(await this.settle(this.api.GET('/api/auth/user/me')), (data) => data.user);
  }

  /** Asks to move to another address (a confirmation link goes there); the same answer whether it is free or taken. */
  changeEmail(newEmail: string, password: string): Promise<Result<unknown>> {
    return this.settle(this.api.POST('/api/auth/user/email', { body: password ? { newEmail, password } : { newEmail } }));
  }

  /** Deletes the signed-in account for good; every session ends and the cookie is cleared. */
  async deleteAccount(password: string): Promise<Result<unknown>> {
    const answer = await this.settle(this.api.DELETE(this.own('/me'), { body: password ? { password } : {} }));
    if (answer.ok) this.session.forget();
    return answer;
  }

  /** The user's own picture, when it has one. */
  avatar(): Promise<Result<Blob>> {
    return this.settle(this.api.GET('/api/auth/user/me/avatar', { parseAs: 'blob' })) as Promise<Result<Blob>>;
  }

  /** Changes the signed-in user's name (the address and the password have their own calls). */
  async updateProfile(name: string): Promise<Result<Account>> {
    return this.pick(await this.settle(this.api.PUT('/api/auth/user/me', { body: { name } })), (data) => data.user);
  }

  /** Keeps a language (a tag such as `de`) as the one the account's pages and mails speak. */
  async setLanguage(language: string): Promise<Result<Account>> {
    return this.pick(await this.settle(this.api.PUT('/api/auth/user/me', { body: { language } })), (data) => data.user);
  }

  /** Replaces the user's picture with an image file (PNG, JPEG or WebP, at most 2 MiB; the service reads the type from its bytes). */
  async replaceAvatar(image: Blob): Promise<Result<Account>> {
    const form = new FormData();
    form.append('avatar', image, typeof File !== 'undefined' && image instanceof File ? image.name : 'avatar');
    const sent = this.api.PUT('/api/auth/user/me/avatar', { body: form as never, bodySerializer: (body: unknown) => body });
    return this.pick(await this.settle(sent), (data) => data.user);
  }

  async removeAvatar(): Promise<Result<Account>> {
    return this.pick(await this.settle(this.api.DELETE('/api/auth/user/me/avatar')), (data) => data.user);
  }

  async changePassword(currentPassword: string, newPassword: string): Promise<Result<unknown>> {
    const answer = await this.settle(this.api.POST(this.own('/password'), { body: { currentPassword, newPassword } }));
    // Every other session ended; this one goes on with the new token.
    if (answer.ok) this.session.keep(answer.data.accessToken, answer.data.expiresIn);
    return answer;
  }

  /** Turns password sign-in off (another way in must remain; needs a recent proof): every other session ends, this one goes on. */
  async removePassword(): Promise<Result<unknown>> {
    const answer = await this.settle(this.api.DELETE(this.own('/password')));
    if (answer.ok) this.session.keep(answer.data.accessToken, answer.data.expiresIn);
    return answer;
  }

  /** What happened to the account, newest first; `cursor` is the previous page's `nextCursor`. */
  activity(cursor?: string): Promise<Result<{ activity: ActivityEntry[]; nextCursor: string | null }>> {
    return this.settle(this.api.GET('/api/auth/user/activity', { params: { query: { limit: 10, ...(cursor ? { cursor } : {}) } } }));
  }

  async sessions(): Promise<Result<Session[]>> {
    return this.pick(await this.settle(this.api.GET('/api/auth/user/sessions')), (data) => data.sessions);
  }

  /** The apps with access to this account (users): their sessions, and what the person allowed each. */
  async appsWithAccess(): Promise<Result<AppAccess[]>> {
    return this.pick(await this.settle(this.api.GET('/api/auth/user/apps')), (data) => data.apps);
  }

  /** Takes an app's access back: its sessions end, and its next sign-in asks for consent again. */
  revokeApp(id: string): Promise<Result<unknown>> {
    return this.settle(this.api.DELETE('/api/auth/user/apps/{appId}', { params: { path: { appId: id } } }));
  }

  endSession(id: string): Promise<Result<unknown>> {
    return this.settle(this.api.DELETE('/api/auth/user/sessions/{sessionId}', { params: { path: { sessionId: id } } }));
  }

  signOutOthers(): Promise<Result<unknown>> {
    return this.settle(this.api.POST('/api/auth/user/sessions/sign-out-others'));
  }

  identities(): Promise<Result<{ identities: Array<{ provider: string; name: string; email: string | null; linkedAt: string }>; providers: IdentityProvider[] }>> {
    return this.settle(this.api.GET(this.own('/identities')));
  }

  /** Starts linking a provider (needs a recent proof); answers the URL to send the browser to. */
  async linkIdentity(provider: string, returnTo: string): Promise<Result<string>> {
    const answer = await this.settle(this.api.POST(this.own('/identities/{provider}'), { params: { path: { provider } }, body: { returnTo } }));
    return this.pick(answer, (data) => data.authorizationUrl);
  }

  unlinkIdentity(provider: string): Promise<Result<unknown>> {
    return this.settle(this.api.DELETE(this.own('/identities/{provider}'), { params: { path: { provider } } }));
  }

  // ---- Second factors (changes need a recent proof: `step_up_required`, then reauthenticate) ----

  async factors(): Promise<Result<Factors>> {
    return this.pick(await this.settle(this.api.GET(this.own('/factors'))), (data) => ({ ...data.factors, pendingRecovery: data.recovery ?? null, password: data.password }));
  }

  /** Cancels a removal of the second factors that the mailbox confirmed. */
  cancelFactorRecovery(): Promise<Result<unknown>> {
    return this.settle(this.api.DELETE(this.own('/factor-recovery')));
  }

  /** A fresh proof of the password or an app code, for the changes that ask for one. */
  reauthenticate(proof: { password: string } | { code: string }): Promise<Result<unknown>> {
    return this.settle(this.api.POST(this.own('/reauthenticate'), { body: proof }));
  }

  startTotp(): Promise<Result<{ secret: string; otpauthUrl: string; qrCode: string }>> {
    return this.settle(this.api.POST(this.own('/factors/totp')));
  }

  /** The app's first code; the account's first factor answers its recovery codes, shown this once. */
  confirmTotp(code: string): Promise<Result<{ recoveryCodes?: string[] }>> {
    return this.settle(this.api.POST(this.own('/factors/totp/confirm'), { body: { code } }));
  }

  removeTotp(): Promise<Result<unknown>> {
    return this.settle(this.api.DELETE(this.own('/factors/totp')));
  }

  newRecoveryCodes(): Promise<Result<{ recoveryCodes: string[] }>> {
    return this.settle(this.api.POST(this.own('/factors/recovery-codes')));
  }

  /** Adds a passkey: the browser makes one on the options (`create`, as `startRegistration` does). */
  async addPasskey(name: string, create: (options: unknown) => Promise<unknown>): Promise<Result<unknown>> {
    const started = await this.settle(this.api.POST(this.own('/factors/passkeys/options')));
    if (!started.ok) return started;
    const passkey = await askSafely(create, started.data.options);
    if ('error' in passkey) return { ok: false, error: passkey.error };
    return this.settle(this.api.POST(this.own('/factors/passkeys'), { body: { name, passkey: passkey.answer as Schemas['PasskeyAnswer'] } }));
  }

  removePasskey(id: string): Promise<Result<unknown>> {
    return this.settle(this.api.DELETE(this.own('/factors/passkeys/{passkeyId}'), { params: { path: { passkeyId: id } } }));
  }

  /** The browsers one trusted at a second step (each skips it after the password until it ends). */
  async trustedBrowsers(): Promise<Result<TrustedBrowser[]>> {
    return this.pick(await this.settle(this.api.GET(this.own('/trusted-browsers'))), (data) => data.browsers);
  }

  /** Forgets a trusted browser: its next sign-in asks for the second step again. */
  forgetBrowser(id: string): Promise<Result<unknown>> {
    return this.settle(this.api.DELETE(this.own('/trusted-browsers/{browserId}'), { params: { path: { browserId: id } } }));
  }

  /** Removes any of one's factors by its `id` in the list's `items`, whatever its method. */
  removeFactor(id: string): Promise<Result<unknown>> {
    return this.settle(this.api.DELETE(this.own('/factors/{factorId}'), { params: { path: { factorId: id } } }));
  }

  /** One's own data, as the file the API answers. */
  exportData(): Promise<Result<Blob>> {
    return this.settle(this.api.GET('/api/auth/user/me/export', { parseAs: 'blob' })) as Promise<Result<Blob>>;
  }

  // ---- The wire ----

  /**
   * This client's kind's path of a route both kinds have (`/login` → `/api/auth/admin/login`), typed
   * as the user's: the compiler accepts only a suffix the contract has for both kinds.
   */
  protected own<S extends KindSuffix>(suffix: S): `/api/auth/user${S}` {
    return `/api/auth/${this.kind}${suffix}` as `/api/auth/user${S}`;
  }

  private async signIn(call: Answer<unknown>): Promise<Result<SignIn>> {
    const answer = (await this.settle(call)) as Result<Record<string, unknown>>;
    if (!answer.ok) return answer;
    const data = answer.data;
    if (data.requires_2fa) {
      const factors = data.factors as Challenge['factors'];
      // The flow's id: the one kind of token every step of a sign-in is followed by (the contract's `challenge_token` is the same).
      const flow = data.flow as { id: string };
      return { ...answer, data: { signedIn: false, challenge: { token: flow.id, expiresIn: Number(data.expires_in), ...(factors ? { factors } : {}) } } };
    }
    this.session.keep(String(data.accessToken), Number(data.expiresIn));
    return { ...answer, data: { signedIn: true, account: (data.user ?? data.admin) as Account } };
  }

  /** An answer as a result: the envelope's `data` and `message`, or the error with its code. */
  protected async settle<D>(call: Answer<D>): Promise<Result<DataOf<D>>> {
    let answer: Awaited<Answer<D>>;
    try {
      answer = await call;
    } catch {
      return { ok: false, error: { status: 0, code: 'network', message: 'The service could not be reached' } };
    }
    const { response } = answer;
    if (!response.ok) return { ok: false, error: errorOf(response, answer.error) };
    const body = answer.data as unknown;
    if (body instanceof Blob) return { ok: true, data: body as unknown as DataOf<D>, message: '' };
    const envelope = (body ?? {}) as { data?: unknown; message?: string };
    return { ok: true, data: (envelope.data ?? {}) as DataOf<D>, message: envelope.message ?? '' };
  }

  protected pick<T, U>(answer: Result<T>, part: (data: T) => U): Result<U> {
    return answer.ok ? { ...answer, data: part(answer.data) } : answer;
  }
}

/** The second step a provider's sign-in came back with, from the page's fragment (`#flow=…&challenge_token=…&factors=…&expires_in=…`). */
export function challengeFromReturn(fragment: string): Challenge | undefined {
  const params = new URLSearchParams(fragment.replace(/^#/, ''));
  const token = params.get('flow') ?? params.get('challenge_token');
  if (!token) return undefined;
  const known: SecondFactorMethod[] = ['totp', 'passkey', 'recovery_code'];
  const factors = (params.get('factors') ?? '').split(',').filter((f): f is SecondFactorMethod => (known as string[]).includes(f));
  const expiresIn = Number(params.get('expires_in')) || 300;
  // `email_code` (an admin's mailed code) is the challenge without factors of its own.
  return { token, expiresIn, ...(factors.length ? { factors } : {}) };
}

/** The body's part that asks to trust this browser, only when asked. */
const trusting = (options: { trustBrowser?: boolean }) => (options.trustBrowser ? { trust_browser: true } : {});

/** The browser's part of a WebAuthn ceremony; a refusal (the person cancelled, no passkey) is an error `passkey_cancelled`. */
async function askSafely(ask: (options: unknown) => Promise<unknown>, options: unknown): Promise<{ answer: unknown } | { error: ApiError }> {
  try {
    return { answer: await ask(options) };
  } catch (err) {
    return { error: { status: 0, code: 'passkey_cancelled', message: err instanceof Error ? err.message : String(err) } };
  }
}

function errorOf(response: Response, body: unknown): ApiError {
  const envelope = (typeof body === 'object' && body !== null ? body : {}) as { code?: string; message?: string; errors?: Record<string, string> };
  const retry = Number(response.headers.get('retry-after'));
  return {
    status: response.status,
    code: envelope.code ?? 'internal_error',
    message: envelope.message ?? response.statusText,
    ...(envelope.errors ? { errors: envelope.errors } : {}),
    ...(Number.isFinite(retry) && retry > 0 ? { retryAfter: retry } : {}),
  };
}
