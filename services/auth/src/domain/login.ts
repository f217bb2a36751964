// Login for both kinds, the admin second factor, and the failed-login records of the spec.
import type { AccountKind } from '@acct/shared';
import { AuthErrors } from '../errors';
import { toAccountRecord, type Account, type AccountRecord } from './account';
import { enforceLimit } from './limits';
import type { Needs, RequestContext } from './ports';
import { openSession, type OpenedSession } from './sessions';
import { validateLogin, validateOtp } from './validation';

export type LoginResult =
  | ({ kind: 'session'; account: AccountRecord } & OpenedSession)
  | { kind: 'otp_required'; challengeToken: string; expiresInSeconds: number };

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

type LoginNeeds = Needs<'accounts' | 'rateLimits' | 'loginAttempts' | 'hasher' | 'sessions' | 'tokens' | 'otp' | 'outbox' | 'audit' | 'logger' | 'policy' | 'metrics'>;

export async function login(domain: LoginNeeds, kind: AccountKind, body: unknown, ctx: RequestContext): Promise<LoginResult> {
  const input = validateLogin(body);
  await enforceLimit(domain, 'loginIp', ctx.ip);
  // The attempt is counted before the compare, so guesses sent at once cannot outrun the limit.
  const reservation = await domain.loginAttempts.reserve(kind, input.email, ctx.ip);
  if (!reservation.allowed) {
    domain.metrics.rateLimited('loginAttempts');
    domain.metrics.login(kind, 'rate_limited');
    throw AuthErrors.rateLimited(reservation.retryAfterMs / 1000);
  }

  let account: Account | null;
  let failure: FailureReason | undefined;
  try {
    account = await domain.accounts[kind].findByEmail(input.email);
    failure = await checkCredentials(domain, account, input.password);
  } catch (err) {
    // No verdict: the attempt is given back.
    await domain.loginAttempts.release(kind, input.email, ctx.ip).catch(() => undefined);
    throw err;
  }
  if (failure) {
    // The spec's fields, plus the request's id (as the request record has it) to tie the two together.
    domain.audit.warn({ email: input.email, ip: ctx.ip, reason: failure, request_id: ctx.requestId }, FAILURE_MESSAGES[kind][failure]);
    domain.metrics.login(kind, 'invalid_credentials');
    throw AuthErrors.invalidCredentials();
  }
  await domain.loginAttempts.succeed(kind, input.email, ctx.ip);
  const found = account as Account & { passwordHash: string };
  if (found.disabled) {
    domain.metrics.login(kind, 'account_disabled');
    throw AuthErrors.accountDisabled();
  }
  upgradeHashLater(domain, kind, found, input.password);

  if (kind === 'admin' && found.twoFactorEnabled) return challengeAdmin(domain, found, ctx);

  const session = await openSession(domain, kind, found);
  domain.metrics.login(kind, 'success');
  if (kind === 'user') notifyLogin(domain, found.id, ctx);
  return { kind: 'session', account: toAccountRecord(kind, found), ...session };
}

/** Opens the admin's one challenge (ending any older one) and mails its code through the outbox. */
async function challengeAdmin(domain: Needs<'otp' | 'outbox' | 'policy' | 'metrics'>, admin: Account, ctx: RequestContext): Promise<LoginResult> {
  const adminId = admin.id;
  const challenge = await domain.otp.create(adminId, ctx.ip);
  try {
    await domain.outbox.add('admin.otp.requested', {
      adminId,
      email: admin.email,
      name: admin.name,
      code: challenge.code,
      expiresAt: challenge.expiresAt.toISOString(),
      requestId: ctx.requestId,
    });
  } catch (err) {
    // A challenge whose code was never sent must not stay open to guesses.
    await domain.otp.cancel(challenge.challengeToken).catch(() => undefined);
    throw err;
  }
  domain.metrics.otp('issued');
  domain.metrics.login('admin', 'otp_required');
  return { kind: 'otp_required', challengeToken: challenge.challengeToken, expiresInSeconds: domain.policy.otpTtlSeconds };
}

export async function verifyOtp(
  domain: Needs<'rateLimits' | 'otp' | 'accounts' | 'sessions' | 'tokens' | 'metrics'>,
  body: unknown,
  ctx: RequestContext,
): Promise<{ account: AccountRecord } & OpenedSession> {
  const input = validateOtp(body);
  await enforceLimit(domain, 'otpIp', ctx.ip);
  const result = await domain.otp.verify(input.challengeToken, input.code);
  domain.metrics.otp(result.outcome);
  if (result.outcome !== 'verified') throw result.outcome === 'wrong_code' ? AuthErrors.invalidCode() : AuthErrors.invalidChallenge();
  const admin = await domain.accounts.admin.findById(result.adminId);
  if (!admin) throw AuthErrors.invalidChallenge();
  if (admin.disabled) throw AuthErrors.accountDisabled();
  const session = await openSession(domain, 'admin', admin);
  return { account: toAccountRecord('admin', admin), ...session };
}

/** Answers the failure reason, having spent one bcrypt compare whatever the case. */
async function checkCredentials(domain: Needs<'hasher'>, account: Account | null, password: string): Promise<FailureReason | undefined> {
  if (!account) {
    await domain.hasher.burn(password);
    return 'not_found';
  }
  if (!account.passwordHash) {
    await domain.hasher.burn(password);
    return 'no_password';
  }
  return (await domain.hasher.verify(password, account.passwordHash)) ? undefined : 'wrong_password';
}

function upgradeHashLater(domain: Needs<'hasher' | 'accounts' | 'logger'>, kind: AccountKind, account: Account & { passwordHash: string }, password: string): void {
  if (!domain.hasher.needsUpgrade(account.passwordHash)) return;
  void domain.hasher
    .hash(password)
    .then((next) => domain.accounts[kind].upgradePasswordHash(account.id, account.passwordHash, next))
    .catch((err) => domain.logger.warn({ reason: (err as Error).message, account_id: account.id }, 'Password hash upgrade failed'));
}

/** Fire-and-forget by contract: a failure to record the event never affects the login. */
function notifyLogin(domain: Needs<'outbox' | 'logger'>, userId: string, ctx: RequestContext): void {
  void domain.outbox
    .add('user.login.succeeded', { userId, ip: ctx.ip, requestId: ctx.requestId })
    .catch((err) => domain.logger.error({ reason: (err as Error).message, user_id: userId, request_id: ctx.requestId }, 'Could not record the login event'));
}
