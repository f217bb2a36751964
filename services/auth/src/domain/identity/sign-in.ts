// Sign-in with an identity provider (OpenID Connect), for users and, through the providers
// OIDC_ADMIN_PROVIDERS names, for admins. A start route keeps the flow's
// PKCE verifier, nonce and return URL server-side under a random `state`, bound to the browser by a
// cookie secret, and sends the browser to the provider; the callback takes the flow back once,
// checks the binding, has the provider's answer validated, then signs the person in with the same
// session, refresh cookie and login push as a password login (or the second step, for an account
// with factors of its own), and sends the browser back to an allow-listed app URL.
//
// Which account: the one already linked to the provider's subject; else, when the provider says the
// address is verified, a new passwordless account with it; an existing account with that address
// is linked only when its own address was verified too. An unverified address never links: it
// would let whoever registered a victim's address at some provider take the account.
//
// Admins: only an identity the admin linked while signed in (with a recent proof) signs them in;
// no address match, no account created. And the provider is only the first factor: the callback
// always answers the second step (the admin's own factors, else the mailed code), and an admin
// with neither is refused.
import { randomBytes } from 'node:crypto';
import type { AccessClaims, AccountKind } from '@acct/shared';
import { AppError, allowedReturnTarget, kindLabel } from '@acct/shared';
import { AuthErrors, identityRedirectErrors, type IdentityErrorCode } from '../../errors';
import { displayName, type Account } from '../shared/account';
import { callerAccount, hasRecentProof } from '../shared/access';
import { startedUnderCurrentCredentials } from '../shared/credential-epoch';
import { removeWayIn } from '../shared/ways-in';
import { assertMaySignIn, verifiesEmail } from '../email';
import { enforceLimit } from '../shared/limits';
import { challengeAdmin, challengeOwnFactors, signIn } from '../sign-in';
import type { IdentityClaims, LinkedIdentity, Needs, ProviderSummary, ProviderLeg, RequestContext, SignInFlow } from './ports';
import { providerFlow } from '../sign-in';
import { securityNotice, wayInAdded } from '../shared/security-notices';
import { asBody } from '../shared/validation';

/** A sign-in with a provider that did not hold: `code` goes back to the app, `reason` to the audit record. */
export class IdentityRefused extends Error {
  constructor(
    readonly code: IdentityErrorCode,
    readonly reason: string,
  ) {
    super(reason);
  }
}

type FlowNeeds = Needs<'identityProviders' | 'flows' | 'policy'>;
type CallbackNeeds = Needs<
  'identityProviders' | 'identities' | 'accounts' | 'rateLimits' | 'factors' | 'flows' | 'sessions' | 'tokens' | 'ceremonies' | 'outbox' | 'appLogouts' | 'activity' | 'audit' | 'logger' | 'policy' | 'metrics'
>;

/** A started flow: where the browser goes, and the secret of its flow cookie. */
export interface StartedFlow {
  authorizationUrl: string;
  binding: string;
}

/** What the callback did: where the browser goes, with a refresh token for the cookie when a session opened. */
export interface CallbackOutcome {
  location: string;
  refreshToken?: string;
  /** The browser's flow was used up (its cookie can go); false when the callback was not its flow's. */
  flowUsed?: boolean;
}

/** Every provider, whether it answers now and whether admins may use it. */
export function listProviders(deps: Needs<'identityProviders' | 'policy'>): (ProviderSummary & { admins: boolean })[] {
  const admins = new Set(deps.policy.identity.adminProviders);
  return deps.identityProviders.list().map((p) => ({ ...p, admins: admins.has(p.id) }));
}

/** Starts a sign-in (for users, or sign-up) with a provider; `returnTo` must be an allow-listed app URL. */
export async function startSignIn(deps: FlowNeeds, kind: AccountKind, providerId: string, returnTo: unknown): Promise<StartedFlow> {
  return beginFlow(deps, kind, providerId, { intent: 'sign_in', returnTo: allowedReturnTo(deps, returnTo) });
}

/** Starts linking a provider to the signed-in account, which proved a factor in the last few minutes (as for adding a passkey). */
export async function startLink(deps: FlowNeeds & Needs<'ceremonies' | 'accounts'>, caller: AccessClaims, providerId: string, raw: unknown): Promise<StartedFlow> {
  const { returnTo } = asBody(raw);
  const target = allowedReturnTo(deps, returnTo);
  const account = await callerAccount(deps, caller);
  if (!(await hasRecentProof(deps, caller, account))) throw AuthErrors.stepUpRequired();
  return beginFlow(deps, caller.kind, providerId, { intent: 'link', returnTo: target }, { accountId: caller.sub, credentialEpoch: account.credentialEpoch });
}

async function beginFlow(
  deps: FlowNeeds,
  kind: AccountKind,
  providerId: string,
  leg: Pick<ProviderLeg, 'intent' | 'returnTo'>,
  link?: { accountId: string; credentialEpoch: number },
): Promise<StartedFlow> {
  // A provider admins may not use is, on their routes, as unknown as one never configured.
  if (kind === 'admin' && !deps.policy.identity.adminProviders.includes(providerId)) throw AuthErrors.identityProviderUnknown();
  const state = randomToken();
  const nonce = randomToken();
  const codeVerifier = randomToken(48);
  const binding = randomToken();
  // Asked first: an unknown provider is a 404, one not discovered yet a 503, and no flow is stored for either.
  const started = await deps.identityProviders.authorizationUrl(providerId, kind, { state, nonce, codeVerifier });
  if ('refused' in started) throw started.refused === 'unknown' ? AuthErrors.identityProviderUnknown() : AuthErrors.identityProviderUnavailable();
  const authorizationUrl = started.url;
  // The flow is addressed by `state` (which the provider sees) and proven by the cookie's secret (which it never does).
  await deps.flows.open(providerFlow(kind, { ...leg, id: providerId, nonce, codeVerifier }, link), { key: { id: state, secret: binding } });
  return { authorizationUrl, binding };
}

/**
 * The provider's redirect back. Never throws for what the browser brought: every refusal sends the
 * browser to the app with `?error=<code>` (to the first app URL when the state is unknown, as
 * nothing of the flow can be trusted then), and is recorded in the audit log.
 */
export async function completeCallback(deps: CallbackNeeds, kind: AccountKind, providerId: string, query: URLSearchParams, presentedBinding: string | undefined, ctx: RequestContext): Promise<CallbackOutcome> {
  const state = query.get('state') ?? '';
  // Without the flow's cookie nothing is taken: a leaked callback URL cannot use the flow up.
  const taken = state && presentedBinding ? await deps.flows.take('provider', { id: state, secret: presentedBinding }) : undefined;
  const flow = taken?.outcome === 'taken' ? taken.flow : undefined;
  const fallback = deps.policy.identity.appUrls[0];
  if (!flow?.provider || flow.provider.id !== providerId || flow.kind !== kind) {
    const reason = !presentedBinding || taken?.outcome === 'other_browser'
      ? 'flow cookie missing or of another browser'
      : !flow?.provider
        ? 'unknown, used or expired state'
        : flow.provider.id !== providerId
          ? 'state of another provider'
          : `state of ${flow.kind === 'admin' ? 'an admin' : 'a user'} flow`;
    return { ...refuse(deps, kind, fallback, providerId, new IdentityRefused('identity_state_invalid', reason), ctx), flowUsed: flow !== undefined };
  }
  return { ...(await finishFlow(deps, kind, flow, flow.provider, query, state, ctx)), flowUsed: true };
}

async function finishFlow(deps: CallbackNeeds, kind: AccountKind, flow: SignInFlow, leg: ProviderLeg, query: URLSearchParams, state: string, ctx: RequestContext): Promise<CallbackOutcome> {
  const providerId = leg.id;
  try {
    await enforceLimit(deps, 'loginIp', ctx.budget);
    const claims = await deps.identityProviders.exchange(providerId, kind, query, { state, nonce: leg.nonce, codeVerifier: leg.codeVerifier });
    if (leg.intent === 'link') return await linkToCaller(deps, kind, providerId, flow, leg.returnTo, claims, ctx);
    const account = kind === 'admin' ? await linkedAdmin(deps, providerId, claims) : await accountFor(deps, providerId, claims, ctx);
    assertMaySignIn(deps, kind, account);
    return kind === 'admin' ? await adminSecondStep(deps, account, providerId, leg.returnTo, ctx) : await signInWithIdentity(deps, account, providerId, leg.returnTo, ctx);
  } catch (err) {
    return refuse(deps, kind, leg.returnTo, providerId, asRefusal(err), ctx);
  }
}

/** The signed-in account's identities, and every provider its kind may use, with whether it can be used now. */
export async function listIdentities(deps: Needs<'identities' | 'identityProviders' | 'policy'>, caller: AccessClaims) {
  const providers = listProviders(deps)
    .filter((p) => caller.kind === 'user' || p.admins)
    .map(({ id, name, available }) => ({ id, name, available }));
  return { identities: await identityRecords(deps, caller.kind, caller.sub), providers };
}

/** An account's linked identities as the API answers them, each with its provider's name. */
export async function identityRecords(deps: Needs<'identities' | 'identityProviders'>, kind: AccountKind, accountId: string) {
  const names = new Map(deps.identityProviders.list().map((p) => [p.id, p.name]));
  const linked = await deps.identities.listFor(kind, accountId);
  return linked.map((i) => ({ provider: i.provider, name: names.get(i.provider) ?? i.provider, email: i.email ?? null, linkedAt: i.linkedAt.toISOString() }));
}

/** Unlinks a provider, unless it is the account's last way to sign in (no password, passkey or other identity). */
export async function unlinkIdentity(deps: UnlinkNeeds, caller: AccessClaims, providerId: string, ctx: RequestContext): Promise<void> {
  await unlinkFrom(deps, caller.kind, await callerAccount(deps, caller), providerId, ctx);
}

type UnlinkNeeds = Needs<'identities' | 'accounts' | 'factors' | 'factorMethods' | 'locks' | 'policy' | 'outbox' | 'activity' | 'logger'>;

/** Unlinks a provider from an account (its owner's act, or an admin's), never its last way in; the owner is mailed a notice. */
export async function unlinkFrom(deps: UnlinkNeeds, kind: AccountKind, account: Account, providerId: string, ctx: RequestContext): Promise<void> {
  const removed = await removeWayIn(deps, kind, account, { type: 'identity', provider: providerId }, () => deps.identities.remove(kind, account.id, providerId));
  if (!removed) throw AuthErrors.identityNotFound();
  await securityNotice(deps, kind, account, 'identity_unlinked', ctx);
}

// ---- the callback's steps ------------------------------------------------------------------------

/** The account the identity signs in: linked already, new, or an existing one both sides verified. */
async function accountFor(deps: CallbackNeeds, providerId: string, claims: IdentityClaims, ctx: RequestContext): Promise<Account> {
  const linked = await deps.identities.find(providerId, claims.subject);
  // An admin's identity is theirs alone: it never opens (or creates) a user account.
  if (linked?.kind === 'admin') throw new IdentityRefused('identity_taken', 'the identity is linked to an admin account');
  if (linked) {
    const account = await deps.accounts.user.findById(linked.accountId);
    if (account) return account;
    // The account was deleted and its identities with it, but this one raced the deletion.
    await deps.identities.remove(linked.kind, linked.accountId, providerId);
  }
  const email = claims.email?.trim().toLowerCase();
  if (!email || !claims.emailVerified) throw new IdentityRefused('identity_email_unverified', claims.unverified ?? 'the provider did not say the address is verified');
  const existing = await deps.accounts.user.findByEmail(email);
  if (existing) {
    if (existing.emailVerified !== true) throw new IdentityRefused('identity_account_exists', 'an account with this address exists and has not verified it');
    await addIdentity(deps, 'user', providerId, claims, existing, email);
    await wayInAdded(deps, 'user', existing, 'identity_linked', `sign-in with ${providerId}`, ctx);
    return existing;
  }
  const created = await deps.accounts.user.create({
    email,
    name: displayName(claims.name, email),
    passwordHash: null,
    role: 'user',
    // Proven by the provider; shown only where the deployment verifies addresses at all.
    ...(verifiesEmail(deps, 'user') ? { emailVerified: true } : {}),
    // The provider vouched for the address: no later mailbox is its first proof.
    addressProvenAt: new Date(),
  });
  // Another sign-in (or a registration) took the address a moment ago: the person signs in again.
  if (created === 'email_taken') throw new IdentityRefused('identity_account_exists', 'the address was registered meanwhile');
  await addIdentity(deps, 'user', providerId, claims, created, email);
  return created;
}

/** The admin an identity signs in: only one the admin linked while signed in. */
async function linkedAdmin(deps: CallbackNeeds, providerId: string, claims: IdentityClaims): Promise<Account> {
  const linked = await deps.identities.find(providerId, claims.subject);
  if (!linked || linked.kind !== 'admin') throw new IdentityRefused('identity_not_linked', 'no admin linked this identity');
  const admin = await deps.accounts.admin.findById(linked.accountId);
  if (!admin) {
    await deps.identities.remove('admin', linked.accountId, providerId);
    throw new IdentityRefused('identity_not_linked', 'the admin that linked this identity is gone');
  }
  return admin;
}

async function addIdentity(deps: Needs<'identities'>, kind: AccountKind, provider: string, claims: IdentityClaims, account: Account, email?: string): Promise<void> {
  const identity: LinkedIdentity = { provider, subject: claims.subject, kind, accountId: account.id, email, linkedAt: new Date() };
  if ((await deps.identities.add(identity)) === 'taken') throw new IdentityRefused('identity_taken', 'the identity or the provider slot is linked already');
}

async function linkToCaller(deps: CallbackNeeds, kind: AccountKind, providerId: string, flow: SignInFlow, returnTo: string, claims: IdentityClaims, ctx: RequestContext): Promise<CallbackOutcome> {
  const account = flow.accountId ? await deps.accounts[kind].findById(flow.accountId) : null;
  if (!account) throw new IdentityRefused('identity_state_invalid', 'the account that started the link is gone');
  // A reset, a new password or an undone change of address since the link started ends it.
  if (!startedUnderCurrentCredentials(account, flow.credentialEpoch)) throw new IdentityRefused('identity_state_invalid', 'the account’s credentials changed after the link started');
  const owner = await deps.identities.find(providerId, claims.subject);
  if (owner && (owner.kind !== kind || owner.accountId !== account.id)) throw new IdentityRefused('identity_taken', 'the identity is linked to another account');
  if (!owner) {
    // An explicit link by the signed-in owner: the provider's address need not match nor be verified.
    await addIdentity(deps, kind, providerId, claims, account, claims.emailVerified ? claims.email?.trim().toLowerCase() : undefined);
    await wayInAdded(deps, kind, account, 'identity_linked', `sign-in with ${providerId}`, ctx);
  }
  deps.audit.info({ event: 'identity_linked', provider: providerId, account_id: account.id, ip: ctx.ip }, `${kindLabel(kind)} identity linked`);
  return { location: withParams(returnTo, { linked: providerId }) };
}

/** The same session and push as a password login; an account with factors of its own gets the second step. */
async function signInWithIdentity(deps: CallbackNeeds, account: Account, providerId: string, returnTo: string, ctx: RequestContext): Promise<CallbackOutcome> {
  const ownFactors = await challengeOwnFactors(deps, 'user', account, ctx, `provider ${providerId}`);
  if (ownFactors) return { location: secondStepLocation(deps, returnTo, ownFactors) };
  const result = await signIn(deps, 'user', account, ctx, `provider ${providerId}`);
  if (result.kind !== 'session') throw new IdentityRefused('service_unavailable', 'no session opened');
  return { location: returnTo, refreshToken: result.refreshToken };
}

/**
 * An admin's provider sign-in is never the whole login: their own factors answer the second step,
 * else the mailed code when the admin has the second factor on; an admin with neither has no
 * second factor to give, and signs in with the password (and sets one up) instead.
 */
async function adminSecondStep(deps: CallbackNeeds, admin: Account, providerId: string, returnTo: string, ctx: RequestContext): Promise<CallbackOutcome> {
  const ownFactors = await challengeOwnFactors(deps, 'admin', admin, ctx, `provider ${providerId}`);
  if (ownFactors) return { location: secondStepLocation(deps, returnTo, ownFactors) };
  if (!admin.twoFactorEnabled) throw new IdentityRefused('second_factor_required', 'the admin has no second factor');
  return { location: secondStepLocation(deps, returnTo, await challengeAdmin(deps, admin, ctx, `provider ${providerId}`)) };
}

/** The second step's flow, in the fragment (which browsers never send to a server): what comes next, for the app to post to verify-otp. */
function secondStepLocation(deps: Needs<'policy'>, returnTo: string, step: { challengeToken: string; next: string[] }): string {
  const fragment = new URLSearchParams({ challenge_token: step.challengeToken, flow: step.challengeToken, factors: step.next.join(','), expires_in: String(deps.policy.otpTtlSeconds) });
  return `${returnTo.split('#')[0]}#${fragment}`;
}

function refuse(deps: Needs<'audit' | 'metrics'>, kind: AccountKind, returnTo: string, providerId: string, refusal: IdentityRefused, ctx: RequestContext): CallbackOutcome {
  deps.audit.warn({ event: 'identity_sign_in_failed', provider: providerId, ip: ctx.ip, reason: refusal.code, detail: refusal.reason }, `${kindLabel(kind)} identity sign-in failed`);
  return { location: withParams(returnTo, { error: refusal.code }) };
}

/** Any failure of the callback as a code the app can act on; a store outage is `service_unavailable`. */
function asRefusal(err: unknown): IdentityRefused {
  if (err instanceof IdentityRefused) return err;
  if (err instanceof AppError) {
    // An API error whose code the redirect list has too means the same there; any other is an outage.
    return new IdentityRefused(Object.hasOwn(identityRedirectErrors, err.code) ? (err.code as IdentityErrorCode) : 'service_unavailable', err.message);
  }
  return new IdentityRefused('service_unavailable', (err as Error).message ?? String(err));
}

// ---- helpers -------------------------------------------------------------------------------------

/** `returnTo` when it is one of the app URLs or a page under one (same origin, path below); the first app URL when absent. */
function allowedReturnTo(deps: Needs<'policy'>, value: unknown): string {
  const allowed = deps.policy.identity.appUrls;
  if (value === undefined || value === null || value === '') return allowed[0];
  // The pages' rule too (@acct/shared return-target): an absolute app URL under an allowed one.
  const target = allowedReturnTarget(value, allowed);
  if (target === undefined) throw AuthErrors.returnUrlNotAllowed();
  return target;
}

function withParams(target: string, params: Record<string, string>): string {
  const url = new URL(target);
  for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
  return url.href;
}

const randomToken = (bytes = 32) => randomBytes(bytes).toString('base64url');
