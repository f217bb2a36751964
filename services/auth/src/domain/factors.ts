// Second factors of both account kinds: an authenticator app (RFC 6238 through `otpauth`), recovery
// codes, and passkeys (WebAuthn ceremonies through `@simplewebauthn/server`). What an account does
// with its own factors, what the second step of a login accepts, and the admin's view and reset of
// a user's. Adding or removing a factor needs a recent proof (the password or a second factor in the
// last STEP_UP_SECONDS); removing one ends the account's other sessions; every change is a notice by
// mail (an `account.security.changed` event through the outbox).
import { randomBytes, randomInt } from 'node:crypto';
import QRCode from 'qrcode';
import { Secret, TOTP } from 'otpauth';
import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
  type AuthenticationResponseJSON,
  type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON,
  type RegistrationResponseJSON,
} from '@simplewebauthn/server';
import { kindLabel, type AccessClaims, type AccountKind, type SecurityChange } from '@acct/shared';
import { AuthErrors } from '../errors';
import type { Account } from './account';
import { enforceLimit } from './limits';
import type { FactorSet, Needs, OpenChallenge, ProofVerdict, RequestContext } from './ports';
import { assertAdminProof, callerAccount, hasRecentProof } from './access';
import { startedUnderCurrentCredentials } from './credential-epoch';
import { removeWayIn } from './ways-in';
import { confirmOwnPassword } from './passwords';
import { securityNotice } from './security-notices';
import { announceEnded, endEverySession } from './sessions';
import { asBody, requireCode, requirePasskeyAnswer, type PasskeyAnswer, type SecondStepProof } from './validation';

/** What an authenticator app reads: 6 digits, 30 s, SHA-1. */
const TOTP_SETTINGS = { algorithm: 'SHA1', digits: 6, period: 30 } as const;
/** Steps of clock skew accepted either way. */
const TOTP_WINDOW = 1;
const RECOVERY_CODE_COUNT = 10;
/** 32 letters and digits without the ones read alike (0/o, 1/l): 5 bits a character, 50 a code. */
const RECOVERY_ALPHABET = 'abcdefghijkmnpqrstuvwxyz23456789';

export type SecondFactor = 'totp' | 'passkey' | 'recovery_code';

/** The factors an account may use at its second step (none: it has no factor of its own). */
export function secondFactorsOf(set: FactorSet): SecondFactor[] {
  const factors: SecondFactor[] = [];
  if (set.totp?.confirmed) factors.push('totp');
  if (set.passkeys.length > 0) factors.push('passkey');
  if (factors.length > 0 && set.recoveryCodesLeft > 0) factors.push('recovery_code');
  return factors;
}

const hasOwnFactor = (set: FactorSet) => set.totp?.confirmed === true || set.passkeys.length > 0;

/** The time step a code of `secret` belongs to, if it is one within a step of now. */
export function totpStep(secret: string, code: string, now = Date.now()): number | undefined {
  const delta = new TOTP({ ...TOTP_SETTINGS, secret: Secret.fromBase32(secret) }).validate({ token: code, timestamp: now, window: TOTP_WINDOW });
  return delta === null ? undefined : Math.floor(now / 1000 / TOTP_SETTINGS.period) + delta;
}

// ---- the second step of a login --------------------------------------------------------------

/**
 * Whether the proof holds for the challenge's account: the code it was mailed, a code of its live
 * authenticator (each time step once), one of its unused recovery codes (used up), or its passkey's
 * answer to the WebAuthn challenge handed out for this step.
 */
export async function proveSecondStep(
  deps: Needs<'factors' | 'accounts' | 'policy' | 'outbox' | 'activity' | 'logger'>,
  challenge: OpenChallenge,
  proof: SecondStepProof,
  ctx: RequestContext,
): Promise<ProofVerdict> {
  const { kind, accountId } = challenge;
  switch (proof.type) {
    case 'code':
      return challenge.isMailedCode(proof.code) || (await useAuthenticatorCode(deps, kind, accountId, proof.code));
    case 'recovery': {
      const left = await deps.factors.useRecoveryCode(kind, accountId, proof.code);
      if (left === 'used') return 'used';
      if (left === undefined) return false;
      const account = await deps.accounts[kind].findById(accountId);
      if (account) await securityNotice(deps, kind, account, 'recovery_code_used', ctx);
      return true;
    }
    case 'passkey': {
      if (!challenge.webauthnChallenge) return false;
      const owner = await verifyAssertion(deps, kind, proof.response, challenge.webauthnChallenge);
      return owner?.accountId === accountId;
    }
  }
}

/** Options for answering a pending second step with a passkey: the account's own passkeys only. */
export async function secondStepPasskeyOptions(deps: Needs<'otp' | 'factors' | 'policy' | 'rateLimits' | 'metrics'>, raw: unknown, ctx: RequestContext): Promise<PublicKeyCredentialRequestOptionsJSON> {
  const webauthn = requireWebauthn(deps);
  await enforceLimit(deps, 'otpIp', ctx.budget);
  const { challenge_token: challengeToken } = asBody(raw);
  if (typeof challengeToken !== 'string' || challengeToken === '') throw AuthErrors.challengeTokenMissing();
  const challenge = randomBytes(32);
  const owner = await deps.otp.attachWebauthn(challengeToken, challenge.toString('base64url'));
  if (!owner) throw AuthErrors.invalidChallenge();
  const { passkeys } = await deps.factors.of(owner.kind, owner.accountId);
  return generateAuthenticationOptions({
    rpID: webauthn.rpId,
    challenge: new Uint8Array(challenge),
    allowCredentials: passkeys.map((p) => ({ id: p.id, transports: p.transports })),
    userVerification: 'required',
  });
}

/** A code of the live authenticator: true once per time step; `used` for a step already used (a replay, or an older step after a newer one), refused but no guess. */
async function useAuthenticatorCode(deps: Needs<'factors'>, kind: AccountKind, accountId: string, code: string): Promise<ProofVerdict> {
  const { totp } = await deps.factors.of(kind, accountId);
  if (!totp?.confirmed) return false;
  const step = totpStep(totp.secret, code);
  if (step === undefined) return false;
  return (await deps.factors.useTotpStep(kind, accountId, step)) || 'used';
}

/**
 * A code checked outside a login's challenge (`reauthenticate`, confirming an authenticator), under
 * the account's one budget of wrong codes: a wait after too many, wherever they were sent.
 */
async function checkCodeWithinBudget(deps: Needs<'codeGuesses'>, kind: AccountKind, accountId: string, check: () => Promise<ProofVerdict>): Promise<void> {
  const wait = await deps.codeGuesses.waitBeforeGuess(kind, accountId);
  if (wait > 0) throw AuthErrors.rateLimited(wait / 1000);
  const verdict = await check();
  if (verdict === true) return deps.codeGuesses.succeeded(kind, accountId);
  if (verdict === false) await deps.codeGuesses.failed(kind, accountId);
  throw AuthErrors.invalidCode();
}

// ---- a passkey in place of the password ------------------------------------------------------

/** Options for signing in with a passkey (any of the kind's: the browser offers the ones it holds), and the token that takes the answer. */
export async function passkeySignInOptions(
  deps: Needs<'ceremonies' | 'policy' | 'rateLimits' | 'metrics'>,
  kind: AccountKind,
  ctx: RequestContext,
): Promise<{ options: PublicKeyCredentialRequestOptionsJSON; passkeyToken: string }> {
  const webauthn = requireWebauthn(deps);
  await enforceLimit(deps, 'loginIp', ctx.budget);
  const options = await generateAuthenticationOptions({ rpID: webauthn.rpId, userVerification: 'required' });
  const passkeyToken = await deps.ceremonies.begin('login', undefined, { challenge: options.challenge, kind });
  return { options, passkeyToken };
}

/** The account whose passkey answered the sign-in ceremony of `passkey_token`: the passkey is both factors. */
export async function passkeySignInAccount(
  deps: Needs<'ceremonies' | 'factors' | 'accounts' | 'policy' | 'rateLimits' | 'metrics' | 'audit'>,
  kind: AccountKind,
  raw: unknown,
  ctx: RequestContext,
): Promise<Account> {
  requireWebauthn(deps);
  await enforceLimit(deps, 'loginIp', ctx.budget);
  const { passkey_token: token, passkey } = asBody(raw);
  if (typeof token !== 'string' || token === '' || passkey === undefined || passkey === null) throw AuthErrors.passkeySignInMissing();
  const answer = requirePasskeyAnswer(passkey);
  const state = await deps.ceremonies.finish('login', token);
  const owner = state?.kind === kind ? await verifyAssertion(deps, kind, answer, state.challenge) : undefined;
  const account = owner ? await deps.accounts[kind].findById(owner.accountId) : null;
  if (!account) {
    deps.audit.warn({ ip: ctx.ip, reason: state ? 'passkey_not_verified' : 'ceremony_unknown' }, `${kindLabel(kind)} passkey login failed`);
    throw AuthErrors.passkeyRejected();
  }
  return account;
}

/** The passkey's owner when its answer verifies against `challenge`; its counter moves on. */
async function verifyAssertion(deps: Needs<'factors' | 'policy'>, kind: AccountKind, answer: PasskeyAnswer, challenge: string): Promise<{ accountId: string } | undefined> {
  const webauthn = requireWebauthn(deps);
  const passkey = await deps.factors.findPasskey(answer.id);
  if (!passkey || passkey.kind !== kind) return undefined;
  try {
    const result = await verifyAuthenticationResponse({
      response: answer as unknown as AuthenticationResponseJSON,
      expectedChallenge: challenge,
      expectedOrigin: webauthn.origins,
      expectedRPID: webauthn.rpId,
      credential: { id: passkey.id, publicKey: new Uint8Array(Buffer.from(passkey.publicKey, 'base64url')), counter: passkey.counter, transports: passkey.transports },
      requireUserVerification: true,
    });
    if (!result.verified) return undefined;
    await deps.factors.usePasskey(passkey.id, result.authenticationInfo.newCounter);
    return { accountId: passkey.accountId };
  } catch {
    // Another origin or challenge, a bad signature, a counter that went back (a cloned key): not verified.
    return undefined;
  }
}

// ---- an account's own factors -----------------------------------------------------------------

type OwnNeeds = Needs<'accounts' | 'factors' | 'ceremonies' | 'sessions' | 'outbox' | 'activity' | 'logger' | 'policy'>;

export interface FactorList {
  totp: { enabled: boolean; pending: boolean; createdAt: string | null };
  passkeys: Array<{ id: string; name: string; createdAt: string; lastUsedAt: string | null }>;
  recoveryCodes: { remaining: number };
  /** Whether this deployment offers passkeys (WEBAUTHN_RP_ID set). */
  passkeysAvailable: boolean;
}

export async function listOwnFactors(deps: Needs<'factors' | 'policy'>, caller: AccessClaims): Promise<FactorList> {
  const set = await deps.factors.of(caller.kind, caller.sub);
  return {
    totp: { enabled: set.totp?.confirmed === true, pending: set.totp?.confirmed === false, createdAt: set.totp?.confirmed ? set.totp.createdAt.toISOString() : null },
    passkeys: set.passkeys.map((p) => ({ id: p.id, name: p.name, createdAt: p.createdAt.toISOString(), lastUsedAt: p.lastUsedAt?.toISOString() ?? null })),
    recoveryCodes: { remaining: hasOwnFactor(set) ? set.recoveryCodesLeft : 0 },
    passkeysAvailable: deps.policy.mfa.webauthn !== undefined,
  };
}

/**
 * A recent proof for the session: the password (counted like a login attempt) or a code of the
 * account's authenticator. A login is one too, for the same time.
 */
export async function reauthenticate(
  deps: Needs<'accounts' | 'factors' | 'ceremonies' | 'hasher' | 'loginAttempts' | 'codeGuesses' | 'rateLimits' | 'metrics'>,
  caller: AccessClaims,
  raw: unknown,
  ctx: RequestContext,
): Promise<void> {
  const { password, code } = asBody(raw);
  const account = await callerAccount(deps, caller);
  if (typeof password === 'string' && password !== '') {
    await confirmOwnPassword(deps, caller.kind, account, password, ctx);
  } else if (code !== undefined) {
    await enforceLimit(deps, 'otpIp', ctx.budget);
    const valid = requireCode(code);
    await checkCodeWithinBudget(deps, caller.kind, caller.sub, () => useAuthenticatorCode(deps, caller.kind, caller.sub, valid));
  } else {
    throw AuthErrors.reauthenticateMissing();
  }
  await deps.ceremonies.markProof(caller.sid, account.credentialEpoch);
}

/** Starts adding an authenticator app: a fresh 160-bit secret, its otpauth:// URI and that URI as a QR image. */
export async function startAuthenticator(deps: OwnNeeds, caller: AccessClaims): Promise<{ secret: string; otpauthUrl: string; qrCode: string }> {
  const account = await requireRecentProof(deps, caller);
  const secret = new Secret({ size: 20 });
  if ((await deps.factors.startTotp(caller.kind, caller.sub, secret.base32)) === 'exists') throw AuthErrors.authenticatorExists();
  const otpauthUrl = new TOTP({ ...TOTP_SETTINGS, issuer: deps.policy.mfa.totpIssuer, label: account.email, secret }).toString();
  return { secret: secret.base32, otpauthUrl, qrCode: await QRCode.toDataURL(otpauthUrl) };
}

/** The first correct code makes the authenticator live; the account's first factor comes with recovery codes. */
export async function confirmAuthenticator(
  deps: OwnNeeds & Needs<'rateLimits' | 'metrics' | 'codeGuesses'>,
  caller: AccessClaims,
  raw: unknown,
  ctx: RequestContext,
): Promise<{ recoveryCodes?: string[] }> {
  await enforceLimit(deps, 'otpIp', ctx.budget);
  const code = requireCode(asBody(raw).code);
  const set = await deps.factors.of(caller.kind, caller.sub);
  if (!set.totp || set.totp.confirmed) throw AuthErrors.noPendingAuthenticator();
  const step = totpStep(set.totp.secret, code);
  await checkCodeWithinBudget(deps, caller.kind, caller.sub, async () => step !== undefined);
  if (!(await deps.factors.confirmTotp(caller.kind, caller.sub, step as number))) throw AuthErrors.noPendingAuthenticator();
  const account = await callerAccount(deps, caller);
  const recoveryCodes = hasOwnFactor(set) ? undefined : await issueRecoveryCodes(deps, caller.kind, caller.sub);
  await securityNotice(deps, caller.kind, account, 'totp_added', ctx);
  return recoveryCodes ? { recoveryCodes } : {};
}

export async function removeAuthenticator(deps: OwnNeeds, caller: AccessClaims, ctx: RequestContext): Promise<number> {
  const account = await requireRecentProof(deps, caller);
  if (!(await deps.factors.removeTotp(caller.kind, caller.sub))) throw AuthErrors.factorNotFound();
  return afterRemoval(deps, caller, account, 'totp_removed', ctx);
}

export async function removePasskey(deps: OwnNeeds & Needs<'locks' | 'identities'>, caller: AccessClaims, passkeyId: string, ctx: RequestContext): Promise<number> {
  const account = await requireRecentProof(deps, caller);
  if (!/^[A-Za-z0-9_-]{1,1366}$/.test(passkeyId)) throw AuthErrors.factorNotFound();
  // A passwordless account's last passkey is its last way in, unless an identity is linked.
  const removed = await removeWayIn(deps, caller.kind, account, { type: 'passkey', id: passkeyId }, () => deps.factors.removePasskey(caller.kind, caller.sub, passkeyId));
  if (!removed) throw AuthErrors.factorNotFound();
  return afterRemoval(deps, caller, account, 'passkey_removed', ctx);
}

/** A new set of recovery codes; the old set ends. Only for an account with a factor they stand in for. */
export async function regenerateRecoveryCodes(deps: OwnNeeds, caller: AccessClaims, ctx: RequestContext): Promise<string[]> {
  const account = await requireRecentProof(deps, caller);
  const set = await deps.factors.of(caller.kind, caller.sub);
  if (!hasOwnFactor(set)) throw AuthErrors.noFactorForRecoveryCodes();
  const codes = await issueRecoveryCodes(deps, caller.kind, caller.sub);
  await securityNotice(deps, caller.kind, account, 'recovery_codes_regenerated', ctx);
  return codes;
}

/** Registration options for a new passkey of the caller (their own passkeys excluded). */
export async function passkeyRegistrationOptions(deps: OwnNeeds, caller: AccessClaims): Promise<PublicKeyCredentialCreationOptionsJSON> {
  const webauthn = requireWebauthn(deps);
  const account = await requireRecentProof(deps, caller);
  const { passkeys } = await deps.factors.of(caller.kind, caller.sub);
  const options = await generateRegistrationOptions({
    rpName: webauthn.rpName,
    rpID: webauthn.rpId,
    userName: account.email,
    userDisplayName: account.name,
    // An opaque handle, the same for every passkey of the account; never the address.
    userID: new Uint8Array(Buffer.from(`${caller.kind}:${account.id}`)),
    attestationType: 'none',
    excludeCredentials: passkeys.map((p) => ({ id: p.id, transports: p.transports })),
    authenticatorSelection: { residentKey: 'required', userVerification: 'required' },
  });
  await deps.ceremonies.begin('register', caller.sid, { challenge: options.challenge, kind: caller.kind, accountId: caller.sub, credentialEpoch: account.credentialEpoch });
  return options;
}

/** Stores the passkey the browser created for the session's ceremony; the account's first factor comes with recovery codes. */
export async function registerPasskey(
  deps: OwnNeeds,
  caller: AccessClaims,
  raw: unknown,
  ctx: RequestContext,
): Promise<{ passkey: { id: string; name: string; createdAt: string }; recoveryCodes?: string[] }> {
  const webauthn = requireWebauthn(deps);
  const account = await requireRecentProof(deps, caller);
  const { name, passkey } = asBody(raw);
  if (name !== undefined && (typeof name !== 'string' || name.trim().length < 1 || name.trim().length > 64)) throw AuthErrors.passkeyName();
  const answer = requirePasskeyAnswer(passkey);
  const state = await deps.ceremonies.finish('register', caller.sid);
  if (!state || state.accountId !== caller.sub || state.kind !== caller.kind || !startedUnderCurrentCredentials(account, state.credentialEpoch)) throw AuthErrors.passkeyRejected();
  let verified: Awaited<ReturnType<typeof verifyRegistrationResponse>>;
  try {
    verified = await verifyRegistrationResponse({
      response: answer as unknown as RegistrationResponseJSON,
      expectedChallenge: state.challenge,
      expectedOrigin: webauthn.origins,
      expectedRPID: webauthn.rpId,
      requireUserVerification: true,
    });
  } catch {
    throw AuthErrors.passkeyRejected();
  }
  if (!verified.verified) throw AuthErrors.passkeyRejected();
  const { credential } = verified.registrationInfo;
  const set = await deps.factors.of(caller.kind, caller.sub);
  const stored = {
    id: credential.id,
    name: typeof name === 'string' ? name.trim() : 'Passkey',
    publicKey: Buffer.from(credential.publicKey).toString('base64url'),
    counter: credential.counter,
    transports: credential.transports ?? [],
  };
  if ((await deps.factors.addPasskey(caller.kind, caller.sub, stored)) === 'exists') throw AuthErrors.passkeyExists();
  const recoveryCodes = hasOwnFactor(set) ? undefined : await issueRecoveryCodes(deps, caller.kind, caller.sub);
  await securityNotice(deps, caller.kind, account, 'passkey_added', ctx);
  return { passkey: { id: stored.id, name: stored.name, createdAt: new Date().toISOString() }, ...(recoveryCodes ? { recoveryCodes } : {}) };
}

// ---- an admin and a user's factors --------------------------------------------------------------

/** Whether a user has factors, never what they are made of. */
export interface UserFactorSummary {
  totp: boolean;
  passkeys: number;
  /** The names the user gave their passkeys and when they were added and last used: never a credential. */
  passkeyList: Array<{ name: string; createdAt: string; lastUsedAt: string | null }>;
  recoveryCodesLeft: number;
}

export async function userFactorSummary(deps: Needs<'accounts' | 'factors'>, userId: string): Promise<UserFactorSummary> {
  const user = await deps.accounts.user.findById(userId);
  if (!user) throw AuthErrors.userNotFound();
  const set = await deps.factors.of('user', userId);
  return {
    totp: set.totp?.confirmed === true,
    passkeys: set.passkeys.length,
    passkeyList: set.passkeys.map((p) => ({ name: p.name, createdAt: p.createdAt.toISOString(), lastUsedAt: p.lastUsedAt?.toISOString() ?? null })),
    recoveryCodesLeft: hasOwnFactor(set) ? set.recoveryCodesLeft : 0,
  };
}

/** Removes every factor of a user (who lost them all): their sessions end and they are told by mail. */
export async function resetUserFactors(deps: Needs<'accounts' | 'ceremonies' | 'factors' | 'sessions' | 'otp' | 'outbox' | 'activity' | 'logger'>, userId: string, ctx: RequestContext): Promise<number> {
  const user = await deps.accounts.user.findById(userId);
  if (!user) throw AuthErrors.userNotFound();
  // It cannot be undone: the admin proves themselves first.
  await assertAdminProof(deps, ctx);
  const removed = await deps.factors.removeAll('user', userId);
  // The epoch moves on: every session ends, and a login that raced the reset with the old factors too.
  const updated = await deps.accounts.user.update(userId, { endSessions: true });
  if (!updated || updated === 'email_taken') throw AuthErrors.userNotFound();
  await endEverySession(deps, 'user', updated, ctx);
  await securityNotice(deps, 'user', updated, 'factors_reset', ctx);
  return removed;
}

// ---- helpers -------------------------------------------------------------------------------------

/** The caller's account, when the session has a recent proof under its current credentials. */
async function requireRecentProof(deps: Needs<'ceremonies' | 'accounts'>, caller: AccessClaims): Promise<Account> {
  const account = await callerAccount(deps, caller);
  if (!(await hasRecentProof(deps, caller, account))) throw AuthErrors.stepUpRequired();
  return account;
}

function requireWebauthn(deps: Needs<'policy'>): NonNullable<typeof deps.policy.mfa.webauthn> {
  const webauthn = deps.policy.mfa.webauthn;
  if (!webauthn) throw AuthErrors.passkeysOff();
  return webauthn;
}

/** After a factor went: the recovery codes go with the last one, the account's other sessions end, the owner is told. */
async function afterRemoval(deps: OwnNeeds, caller: AccessClaims, account: Account, change: SecurityChange, ctx: RequestContext): Promise<number> {
  const set = await deps.factors.of(caller.kind, caller.sub);
  if (!hasOwnFactor(set)) await deps.factors.removeRecoveryCodes(caller.kind, caller.sub);
  const ended = await deps.sessions.revokeOthers(caller.kind, caller.sub, caller.sid);
  await announceEnded(deps, caller.kind, caller.sub, ended, ctx);
  await securityNotice(deps, caller.kind, account, change, ctx);
  return ended.length;
}

async function issueRecoveryCodes(deps: Needs<'factors'>, kind: AccountKind, accountId: string): Promise<string[]> {
  const codes = Array.from({ length: RECOVERY_CODE_COUNT }, () => {
    const chars = Array.from({ length: 10 }, () => RECOVERY_ALPHABET[randomInt(RECOVERY_ALPHABET.length)]).join('');
    return `${chars.slice(0, 5)}-${chars.slice(5)}`;
  });
  // Stored without the dash, as presented codes are compared.
  await deps.factors.replaceRecoveryCodes(
    kind,
    accountId,
    codes.map((c) => c.replace('-', '')),
  );
  return codes;
}
