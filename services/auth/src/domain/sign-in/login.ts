// Login for both kinds, the admin second factor, and the failed-login records of the spec.
import type { AccountKind } from '@acct/shared';
import { AuthErrors } from '../../errors';
import { toAccountRecord, type Account, type AccountRecord } from '../shared/account';
import { enforceLimit } from '../shared/limits';
import type { Needs, RequestContext } from './ports';
import { openSession, type OpenedSession } from '../shared/sessions';
import { assertMaySignIn } from '../email';
import { proveSecondStep, secondFactorsOf, type SecondFactor } from '../factors';
import { passkeySignInAccount } from './passkey-sign-in';
import { provenBy, secondStepFlow, type NextStep } from './flow';
import { validateLogin, validateOtp } from '../shared/validation';
import { assertStillAwaited } from '../shared/request-deadline';
import { noteActivity } from '../shared/activity';
import { passwordWork } from '../shared/passwords';
import { startedUnderCurrentCredentials } from '../shared/credential-epoch';
import { cancelPendingRecovery } from '../shared/mailbox';
import { spokenIn } from '../shared/language';

export type LoginResult =
  | ({ kind: 'session'; account: AccountRecord } & OpenedSession)
  /**
   * The second step is next: `next` is what the account may answer with (its own factors, else
   * `email_code`); `factors` is the same list as the login's answer names it, only for an account
   * with factors of its own (the contract's admin answer carries no list).
   */
  | { kind: 'otp_required'; challengeToken: string; expiresInSeconds: number; next: NextStep[]; factors?: SecondFactor[] };

/** What signed a person in (or opened their second step), as their activity records it. */
export type FirstFactor = 'password' | `provider ${string}` | 'email';

type FailureReason = 'not_found' | 'no_password' | 'wrong_password';

const FAILURE_MESSAGES: Record<AccountKind, Record<FailureReason, string>> = {
  user: {
    not_found: 'User login failed: invalid credentials',
    no_password: 'User login failed: password not set',
    wrong_password: 'User login failed: invalid credentials',
  },
  admin: {
    not_found: 'Admin login failed: invalid credentials',
    no_password: 'Admin login failed: password not set',
    wrong_password: 'Admin login failed: invalid credentials',
  },
};

type LoginNeeds = Needs<'accounts' | 'rateLimits' | 'loginAttempts' | 'hasher' | 'sessions' | 'tokens' | 'flows' | 'factors' | 'passkeys' | 'ceremonies' | 'recoveries' | 'trustedBrowsers' | 'outbox' | 'appLogouts' | 'activity' | 'audit' | 'logger' | 'policy' | 'metrics'>;

export async function login(deps: LoginNeeds, kind: AccountKind, body: unknown, ctx: RequestContext): Promise<LoginResult> {
  const input = validateLogin(body);
  await enforceLimit(deps, 'loginIp', ctx.budget);
  // The attempt is counted before the compare, so guesses sent at once cannot outrun the limit.
  const reservation = await deps.loginAttempts.reserve(kind, input.email, ctx.budget);
  if (!reservation.allowed) {
    deps.metrics.rateLimited('loginAttempts');
    deps.metrics.login(kind, 'rate_limited');
    throw AuthErrors.rateLimited(reservation.retryAfterMs / 1000);
  }

  let account: Account | null;
  let failure: FailureReason | undefined;
  try {
    account = await deps.accounts[kind].findByEmail(input.email);
    failure = await checkCredentials(deps, account, input.password, ctx.signal);
  } catch (err) {
    // No verdict: the attempt is given back.
    await deps.loginAttempts.release(kind, input.email, ctx.budget).catch(() => undefined);
    throw err;
  }
  if (failure) {
    // The spec's fields; the request's scope adds its id (as the request record has it) to tie the two together.
    deps.audit.warn({ email: input.email, ip: ctx.ip, reason: failure }, FAILURE_MESSAGES[kind][failure]);
    deps.metrics.login(kind, 'invalid_credentials');
    // A wrong password counts against the account: its owner sees it (a missing account has no history).
    if (account && failure === 'wrong_password') await noteActivity(deps, ctx, { kind, accountId: account.id, type: 'sign_in_failed', details: ['method: password'] });
    throw AuthErrors.invalidCredentials();
  }
  await deps.loginAttempts.succeed(kind, input.email, ctx.budget);
  // The compare may have waited past the gateway's deadline: then no challenge, session or push.
  assertStillAwaited(ctx);
  const found = account as Account & { passwordHash: string };
  assertMaySignIn(deps, kind, found);
  upgradeHashLater(deps, kind, found, input.password);

  // A browser its owner trusted at an earlier second step skips it (after the password alone, and only under the credentials it was trusted under).
  if (await trustedBrowser(deps, kind, found, ctx)) return signIn(deps, kind, found, ctx, 'password', 'a trusted browser');
  // An account with factors of its own answers with one of them; an admin without, with a mailed code.
  const ownFactors = await challengeOwnFactors(deps, kind, found, ctx, 'password');
  if (ownFactors) return ownFactors;
  if (kind === 'admin' && found.twoFactorEnabled) return challengeAdmin(deps, found, ctx, 'password');
  return signIn(deps, kind, found, ctx, 'password');
}

/** A passkey in place of the password: both factors at once, for either kind (when passkeys are on). */
export async function passkeyLogin(deps: LoginNeeds, kind: AccountKind, body: unknown, ctx: RequestContext): Promise<LoginResult> {
  const account = await passkeySignInAccount(deps, kind, body, ctx);
  assertMaySignIn(deps, kind, account);
  // A passkey is a second factor held: whoever holds one is the owner a mailbox recovery waits for.
  await cancelPendingRecovery(deps, kind, account, ctx, 'a sign-in with a second factor');
  return signIn(deps, kind, account, ctx, 'passkey');
}

/**
 * The session of an account whose factors all held and that may sign in; a user's login is pushed to
 * their devices, and every sign-in is in the account's activity with how (`method`).
 */
export async function signIn(
  deps: Needs<'appLogouts' | 'sessions' | 'tokens' | 'ceremonies' | 'outbox' | 'activity' | 'logger' | 'metrics'>,
  kind: AccountKind,
  account: Account,
  ctx: RequestContext,
  method: FirstFactor | 'passkey',
  secondStep?: 'a trusted browser',
): Promise<LoginResult> {
  const session = await openSession(deps, kind, account, ctx);
  deps.metrics.login(kind, 'success');
  if (kind === 'user') notifyLogin(deps, account.id, ctx);
  await noteActivity(deps, ctx, { kind, accountId: account.id, type: 'signed_in', details: [`method: ${method}`, ...(secondStep ? [`second step: ${secondStep}`] : [])] });
  return { kind: 'session', account: toAccountRecord(kind, account), ...session };
}

/** The second step with the account's own factors (authenticator app, passkey, recovery codes); undefined when it has none. */
export async function challengeOwnFactors(
  deps: Needs<'factors' | 'flows' | 'policy' | 'metrics'>,
  kind: AccountKind,
  account: Account,
  ctx: RequestContext,
  method: FirstFactor,
): Promise<(LoginResult & { kind: 'otp_required' }) | undefined> {
  const factors = secondFactorsOf(await deps.factors.list(kind, account.id));
  if (factors.length === 0) return undefined;
  const flow = await deps.flows.open(secondStepFlow(kind, account, provenBy(method), factors, ctx.ip));
  deps.metrics.login(kind, 'otp_required');
  return { kind: 'otp_required', challengeToken: flow.token, expiresInSeconds: deps.policy.otpTtlSeconds, next: factors, factors };
}

/** Opens the admin's one challenge (ending any older one) and mails its code through the outbox. */
export async function challengeAdmin(
  deps: Needs<'flows' | 'outbox' | 'activity' | 'policy' | 'metrics'>,
  admin: Account,
  ctx: RequestContext,
  method: FirstFactor,
): Promise<LoginResult & { kind: 'otp_required' }> {
  const adminId = admin.id;
  const challenge = await deps.flows.open(secondStepFlow('admin', admin, provenBy(method), ['email_code'], ctx.ip), { mailCode: true });
  try {
    await deps.outbox.add('admin.otp.requested', {
      adminId,
      email: admin.email,
      name: admin.name,
      code: challenge.code as string,
      expiresAt: challenge.expiresAt.toISOString(),
      requestId: ctx.requestId,
      ...spokenIn(admin, ctx),
    });
  } catch (err) {
    // A challenge whose code was never sent must not stay open to guesses.
    await deps.flows.cancel(challenge.token).catch(() => undefined);
    throw err;
  }
  deps.metrics.otp('issued');
  deps.metrics.login('admin', 'otp_required');
  return { kind: 'otp_required', challengeToken: challenge.token, expiresInSeconds: deps.policy.otpTtlSeconds, next: ['email_code'] };
}

/**
 * The second step, for either kind: the mailed code, an authenticator code, a recovery code or a
 * passkey. Each is one attempt against the challenge, so a recovery code guess costs a code guess.
 */
export async function verifyOtp(
  deps: Needs<'appLogouts' | 'rateLimits' | 'flows' | 'accounts' | 'factors' | 'totp' | 'passkeys' | 'ceremonies' | 'recoveries' | 'trustedBrowsers' | 'sessions' | 'tokens' | 'metrics' | 'outbox' | 'activity' | 'logger' | 'policy'>,
  body: unknown,
  ctx: RequestContext,
): Promise<{ kind: AccountKind; account: AccountRecord; trustedBrowser?: string } & OpenedSession> {
  const input = validateOtp(body);
  const trust = input.trustBrowser && deps.policy.mfa.trustedBrowserDays > 0;
  await enforceLimit(deps, 'otpIp', ctx.budget);
  const result = await deps.flows.attempt(input.challengeToken, (challenge) => proveSecondStep(deps, challenge, input.proof, ctx));
  deps.metrics.otp(result.outcome);
  if (result.outcome === 'throttled') throw AuthErrors.rateLimited(result.retryAfterMs / 1000);
  if (result.outcome !== 'verified') throw result.outcome === 'wrong_code' ? AuthErrors.invalidCode() : AuthErrors.invalidChallenge();
  const { kind, accountId } = result.flow;
  const account = accountId === undefined ? null : await deps.accounts[kind].findById(accountId);
  // Opened with a password that a reset (or a disable) has since replaced: it ended with the change.
  if (!account || !startedUnderCurrentCredentials(account, result.flow.credentialEpoch)) throw AuthErrors.invalidChallenge();
  assertMaySignIn(deps, kind, account);
  // A factor of the account's own held (not the mailed code, which is the mailbox): a pending recovery ends.
  if (!result.flow.next.includes('email_code')) await cancelPendingRecovery(deps, kind, account, ctx, 'a sign-in with a second factor');
  const session = await openSession(deps, kind, account, ctx);
  if (kind === 'user') {
    deps.metrics.login(kind, 'success');
    notifyLogin(deps, account.id, ctx);
  }
  const step = { code: 'a code', recovery: 'a recovery code', passkey: 'a passkey' }[input.proof.type];
  // Asked for with the step: this browser skips it after the password, for the deployment's days.
  const trustedBrowser = trust ? await deps.trustedBrowsers.add(kind, account.id, account.credentialEpoch, { ip: ctx.ip, ...(ctx.userAgent ? { userAgent: ctx.userAgent } : {}) }) : undefined;
  await noteActivity(deps, ctx, { kind, accountId: account.id, type: 'signed_in', details: [`second step: ${step}`, ...(trustedBrowser ? [`browser trusted for ${deps.policy.mfa.trustedBrowserDays} days`] : [])] });
  return { kind, account: toAccountRecord(kind, account), ...session, ...(trustedBrowser ? { trustedBrowser } : {}) };
}

/** Whether the login comes from a browser the account trusted at a second step (and browsers may be trusted at all). */
async function trustedBrowser(deps: Needs<'trustedBrowsers' | 'policy'>, kind: AccountKind, account: Account, ctx: RequestContext): Promise<boolean> {
  if (!ctx.trustedBrowser || deps.policy.mfa.trustedBrowserDays <= 0) return false;
  return deps.trustedBrowsers.holds(kind, account.id, account.credentialEpoch, ctx.trustedBrowser);
}

/** Answers the failure reason, having spent one bcrypt compare whatever the case. */
async function checkCredentials(deps: Needs<'hasher'>, account: Account | null, password: string, signal?: AbortSignal): Promise<FailureReason | undefined> {
  if (!account) {
    passwordWork(await deps.hasher.burn(password, signal));
    return 'not_found';
  }
  if (!account.passwordHash) {
    passwordWork(await deps.hasher.burn(password, signal));
    return 'no_password';
  }
  return passwordWork(await deps.hasher.verify(password, account.passwordHash, signal)) ? undefined : 'wrong_password';
}

function upgradeHashLater(deps: Needs<'hasher' | 'accounts' | 'logger'>, kind: AccountKind, account: Account & { passwordHash: string }, password: string): void {
  if (!deps.hasher.needsUpgrade(account.passwordHash)) return;
  void deps.hasher
    .hash(password)
    .then((next) => deps.accounts[kind].upgradePasswordHash(account.id, account.passwordHash, passwordWork(next)))
    .catch((err) => deps.logger.warn({ reason: (err as Error).message, account_id: account.id }, 'Password hash upgrade failed'));
}

/** Fire-and-forget by contract: a failure to record the event never affects the login. */
function notifyLogin(deps: Needs<'outbox' | 'activity' | 'logger'>, userId: string, ctx: RequestContext): void {
  void deps.outbox
    .add('user.login.succeeded', { userId, ip: ctx.ip, requestId: ctx.requestId })
    .catch((err) => deps.logger.error({ reason: (err as Error).message, user_id: userId }, 'Could not record the login event'));
}
