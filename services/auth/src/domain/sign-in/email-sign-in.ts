// Signing in with only an email address: one mail carries a link, for the browser that asked, and a
// code, for the device that asked when that is another (a phone, a TV). The whole way in is this
// module, its settings (settings/email-sign-in.ts) and its flow purpose (`email`, flow.ts).
//
// The rules, each held here:
// - The same answer and the same work for every address: the request opens a flow and queues the
//   mail, and only the mail's worker looks the address up (on its own schedule, as forgot-password
//   does), so neither the answer, its timing, nor a code tried later (wrong codes count per address,
//   redis-sign-in-flows.ts) tells whether an account has it. Per client and per address limits are
//   forgot-password's: they bound the mail an address gets, whatever asks for it.
// - One use, a short life (EMAIL_SIGN_IN_TTL_SECONDS), the link and the code one flow: using either
//   ends both; a code has the flow's attempts and the address's wrong-code budget.
// - Bound to the browser that asked: the link signs in only the browser whose flow cookie it was
//   asked from (the gateway sets it on the request). Opened elsewhere it is refused and left for
//   that browser, so a forwarded or intercepted link hands over nothing and nobody can sign a victim
//   into their own account (login CSRF); the code works only with the flow's token, which the device
//   that asked holds.
// - A mailbox is one factor (shared/mailbox.ts): an account with factors of its own still gets its
//   second step; an admin with none is refused (their mailed code would be the mailbox again). It
//   cancels no pending factor recovery, and as any first answer of the address, it proves the
//   address (the first-proof rule: shared/mailbox.ts `addressAnswered`).
// - A credential change between the mail and its use (a reset, an undo, a disable) ends it.
import { kindLabel, type AccountKind } from '@acct/shared';
import { AuthErrors } from '../../errors';
import { displayName, type Account } from '../shared/account';
import { enforceLimit, withinLimit } from '../shared/limits';
import type { MailedSignIn, Needs, RequestContext, SignInFlow } from './ports';
import { asBody, requireCode, requireEmail } from '../shared/validation';
import { startedUnderCurrentCredentials } from '../shared/credential-epoch';
import { addressAnswered } from '../shared/mailbox';
import { noteActivity } from '../shared/activity';
import { assertMaySignIn, verifiesEmail, type ClaimedResetRequest } from '../email';
import { challengeOwnFactors, signIn, type LoginResult } from './login';
import { spokenIn } from '../shared/language';

/** The query parameter of the sign-in page that carries a mailed link. */
export const EMAIL_LINK_PARAM = 'email_sign_in';

/** A sign-in by email asked for: the flow's token (the device that asked keeps it; a browser's cookie holds it too) and how long the mail works. */
export interface EmailSignInStarted {
  flowToken: string;
  expiresInSeconds: number;
}

/** Whether accounts of the kind may sign in by email on this deployment. */
export const emailSignInOn = (deps: Needs<'policy'>, kind: AccountKind) => deps.policy.emailSignIn.kinds.includes(kind);

function requireOn(deps: Needs<'policy'>, kind: AccountKind): void {
  if (!emailSignInOn(deps, kind)) throw AuthErrors.emailSignInOff();
}

/** Validates, rate-limits, opens the flow and queues its mail: the same for every address. */
export async function requestEmailSignIn(
  deps: Needs<'policy' | 'rateLimits' | 'loginAttempts' | 'flows' | 'resetRequests' | 'metrics'>,
  kind: AccountKind,
  raw: unknown,
  ctx: RequestContext,
): Promise<EmailSignInStarted> {
  requireOn(deps, kind);
  const { email: given } = asBody(raw);
  if (typeof given !== 'string' || given.trim() === '') throw AuthErrors.emailSignInMissing();
  const email = requireEmail(given.trim());
  await enforceLimit(deps, 'forgotIp', ctx.budget);
  // Per address and client: a stranger spends their own budget, never the owner's.
  await enforceLimit(deps, 'forgotEmailIp', `sign-in:${kind}:${email}:${ctx.budget}`);
  // Per address, whoever asks: bounds the mail it gets without a 429 that would say "no" (as forgot-password does).
  const mail = (await deps.loginAttempts.isKnown(kind, email, ctx.budget)) || (await withinLimit(deps, 'forgotEmail', `sign-in:${kind}:${email}`));
  const flow = await deps.flows.open({ purpose: 'email', kind, proven: [], next: ['email_sign_in'], email, ip: ctx.ip });
  await deps.resetRequests.enqueue({ purpose: 'sign_in', kind, email, ip: ctx.ip, requestId: ctx.requestId, ...(ctx.language ? { language: ctx.language } : {}), mail, flowId: flow.id });
  return { flowToken: flow.token, expiresInSeconds: deps.policy.emailSignIn.ttlSeconds };
}

/**
 * Answers one queued request (the reset-mail worker): an enabled account of the address gets its
 * link and code; an address no user has gets a sign-up mail where the deployment allows it; any other
 * gets nothing, and its flow stays open and unarmed (no code or link matches it).
 */
export async function answerEmailSignInRequest(deps: Needs<'accounts' | 'flows' | 'outbox' | 'logger' | 'policy'>, request: ClaimedResetRequest): Promise<void> {
  const { kind, email, flowId } = request;
  if (!flowId || !emailSignInOn(deps, kind)) return;
  const account = await deps.accounts[kind].findByEmail(email);
  const signUp = !account && kind === 'user' && deps.policy.emailSignIn.signUp;
  if ((!account || account.disabled) && !signUp) return;
  if (!request.mail) {
    deps.logger.warn({ kind, ...(account ? { account_id: account.id } : {}) }, 'Sign-in mail budget of this address is spent; no link sent');
    return;
  }
  const mailed = await deps.flows.arm(flowId, account ? { accountId: account.id, credentialEpoch: account.credentialEpoch } : { signUp: true });
  // Used, expired or mailed already (a worker's retry): nothing to send.
  if (!mailed) return;
  await deps.outbox.add('account.email_sign_in.requested', {
    kind,
    ...(account ? { accountId: account.id } : {}),
    email,
    name: account?.name ?? '',
    linkUrl: linkUrl(deps, kind, mailed),
    code: mailed.code,
    expiresAt: mailed.expiresAt.toISOString(),
    signUp,
    requestId: request.requestId,
    ...spokenIn(account, request),
  });
}

/** The sign-in page's address with the link in it. */
function linkUrl(deps: Needs<'policy'>, kind: AccountKind, mailed: MailedSignIn): string {
  const url = new URL(deps.policy.emailSignIn.urlBase[kind]);
  url.searchParams.set(EMAIL_LINK_PARAM, mailed.link);
  return url.toString();
}

type FinishNeeds = Needs<
  'accounts' | 'factors' | 'factorMethods' | 'identities' | 'flows' | 'sessions' | 'tokens' | 'ceremonies' | 'outbox' | 'appLogouts' | 'activity' | 'audit' | 'logger' | 'policy' | 'metrics'
>;

/** The mailed link, in the browser whose flow it is (`browserFlow`: its flow cookie's token). */
export async function signInWithEmailLink(deps: FinishNeeds & Needs<'rateLimits'>, kind: AccountKind, raw: unknown, browserFlow: string | undefined, ctx: RequestContext): Promise<LoginResult> {
  requireOn(deps, kind);
  const { token } = asBody(raw);
  if (typeof token !== 'string' || token === '') throw AuthErrors.emailLinkMissing();
  await enforceLimit(deps, 'loginIp', ctx.budget);
  const taken = await deps.flows.takeLink(token, browserFlow);
  if (taken.outcome === 'other_browser' && taken.flow.kind === kind) {
    deps.audit.warn({ event: 'email_sign_in_failed', ip: ctx.ip, reason: browserFlow ? 'link of another browser' : 'link without its browser' }, `${kindLabel(kind)} email sign-in failed`);
    throw AuthErrors.emailLinkOtherBrowser();
  }
  if (taken.outcome !== 'taken' || taken.flow.kind !== kind) {
    deps.audit.warn({ event: 'email_sign_in_failed', ip: ctx.ip, reason: 'unknown, used or expired link' }, `${kindLabel(kind)} email sign-in failed`);
    throw AuthErrors.emailLinkInvalid();
  }
  return finish(deps, kind, taken.flow, 'link', ctx);
}

/** The mailed code, on the device that asked (`flow`: the token its request was answered). */
export async function signInWithEmailCode(deps: FinishNeeds & Needs<'rateLimits'>, kind: AccountKind, raw: unknown, ctx: RequestContext): Promise<LoginResult> {
  requireOn(deps, kind);
  const { flow: token, code: given } = asBody(raw);
  if (typeof token !== 'string' || token === '' || given === undefined || given === null || given === '') throw AuthErrors.emailCodeMissing();
  const code = requireCode(given);
  await enforceLimit(deps, 'otpIp', ctx.budget);
  const result = await deps.flows.enterCode(token, code);
  deps.metrics.otp(result.outcome);
  if (result.outcome === 'throttled') throw AuthErrors.rateLimited(result.retryAfterMs / 1000);
  if (result.outcome === 'wrong_code') throw AuthErrors.invalidCode();
  if (result.outcome !== 'verified' || result.flow.kind !== kind) throw AuthErrors.invalidChallenge();
  return finish(deps, kind, result.flow, 'code', ctx);
}

/** A flow whose link or code held: the account it names signs in (or is made), its second step still asked for. */
async function finish(deps: FinishNeeds, kind: AccountKind, flow: SignInFlow, by: 'link' | 'code', ctx: RequestContext): Promise<LoginResult> {
  const account = flow.signUp ? await signUp(deps, flow, ctx) : await mailedAccount(deps, kind, flow);
  // The mailbox answered: the address is proven (the first time, what was added before loses what it could do alone).
  const proven = await proveAddress(deps, kind, account, ctx);
  assertMaySignIn(deps, kind, proven);
  const secondStep = await challengeOwnFactors(deps, kind, proven, ctx, 'email');
  if (secondStep) return secondStep;
  // An admin's mailed code would be the same mailbox again: no second factor to add to this one.
  if (kind === 'admin') {
    deps.audit.warn({ event: 'email_sign_in_failed', ip: ctx.ip, reason: 'admin without a second factor of their own', account_id: proven.id }, 'Admin email sign-in failed');
    throw AuthErrors.secondFactorRequired();
  }
  deps.audit.info({ event: 'email_sign_in', by, account_id: proven.id, ip: ctx.ip }, `${kindLabel(kind)} signed in by email`);
  return signIn(deps, kind, proven, ctx, 'email');
}

/** The account a flow was mailed for, as long as nothing changed its credentials since. */
async function mailedAccount(deps: Needs<'accounts'>, kind: AccountKind, flow: SignInFlow): Promise<Account> {
  const account = flow.accountId === undefined ? null : await deps.accounts[kind].findById(flow.accountId);
  if (!account || !startedUnderCurrentCredentials(account, flow.credentialEpoch)) throw AuthErrors.emailLinkInvalid();
  return account;
}

/** The first link to an address no user had: the account, passwordless, its address proven by this very mail. */
async function signUp(deps: Needs<'accounts' | 'policy' | 'activity' | 'logger'>, flow: SignInFlow, ctx: RequestContext): Promise<Account> {
  const email = flow.email;
  if (!email || flow.kind !== 'user' || !deps.policy.emailSignIn.signUp) throw AuthErrors.emailLinkInvalid();
  const created = await deps.accounts.user.create({
    email,
    name: displayName(undefined, email),
    passwordHash: null,
    role: 'user',
    ...(verifiesEmail(deps, 'user') ? { emailVerified: true } : {}),
    addressProvenAt: new Date(),
  });
  // Someone registered the address meanwhile: the mail was for a new account, and this is not one.
  if (created === 'email_taken') throw AuthErrors.emailLinkInvalid();
  await noteActivity(deps, ctx, { kind: 'user', accountId: created.id, type: 'registered', details: ['by email'] });
  return created;
}

async function proveAddress(deps: Needs<'accounts' | 'factors' | 'factorMethods' | 'identities' | 'outbox' | 'activity' | 'logger' | 'policy'>, kind: AccountKind, account: Account, ctx: RequestContext): Promise<Account> {
  let current = account;
  if (verifiesEmail(deps, kind) && account.emailVerified === false) {
    const verified = await deps.accounts[kind].update(account.id, { emailVerified: true });
    if (!verified || verified === 'email_taken') throw AuthErrors.emailLinkInvalid();
    current = verified;
    await noteActivity(deps, ctx, { kind, accountId: account.id, type: 'email_verified', details: [verified.email] });
  }
  await addressAnswered(deps, kind, account, ctx);
  return current;
}
