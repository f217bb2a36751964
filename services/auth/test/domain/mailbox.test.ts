// What a mailbox may do to an account (shared/mailbox.ts), on in-memory ports: it is one factor, so
// a reset replaces the password and removes no second factor or way in; getting back in without the
// factors takes the password, the mailbox and a wait that the address is told of twice, and that a
// sign-in with a factor or the owner's console cancels. Each new way in is a notice naming it.
import { AuthErrors } from '../../src/errors';
import { mailResetLink, resetPassword } from '../../src/domain/email/password-reset';
import { cancelOwnFactorRecovery, confirmFactorRecovery, pendingRecovery, requestFactorRecovery, runFactorRecoveries } from '../../src/domain/email/factor-recovery';
import { login, passkeyLogin, verifyOtp } from '../../src/domain/sign-in/login';
import { passkeySignInOptions } from '../../src/domain/sign-in/passkey-sign-in';
import { confirmAuthenticator, secondStepPasskeyOptions, startAuthenticator } from '../../src/domain/factors';
import { sendVerificationLink, verifyEmail } from '../../src/domain/email/ownership';
import { claimsOf, memorySignIn, requestOf, APP, startApp, replaceCodes, addPasskey, heldFactors } from '../fakes';

const HOUR = 3600 * 1000;

/** A user with a confirmed authenticator app, a passkey and a linked identity, and the reset link the mailbox reads. */
async function setUp() {
  const setup = await memorySignIn();
  const owner = await setup.make('user', 'grace@example.com', { emailVerified: true });
  await startApp(setup.deps.factors, 'user', owner.id);
  await setup.deps.factors.confirm('user', owner.id, APP, 1);
  await addPasskey(setup.deps.factors, 'user', owner.id, { id: 'key-1', name: 'Laptop', publicKey: 'pk', counter: 0, transports: [] });
  await replaceCodes(setup.deps.factors, 'user', owner.id, ['abcdefghij', 'klmnopqrst']);
  await setup.deps.identities.add({ provider: 'idp', subject: 'someone', kind: 'user', accountId: owner.id, linkedAt: new Date() });
  return { ...setup, owner };
}

type Setup = Awaited<ReturnType<typeof setUp>>;

/** Resets the password through the mailed link, as whoever reads the mailbox would. */
async function resetByMail({ deps, owner }: Pick<Setup, 'deps' | 'owner'>, newPassword = 'the mailbox chose this') {
  const account = (await deps.accounts.user.findById(owner.id))!;
  await mailResetLink(deps, 'user', account);
  const mailed = deps.outbox.events.filter((e) => e.type === 'account.password_reset.requested').at(-1)!.input as { resetUrl: string };
  await resetPassword(deps, 'user', { token: new URL(mailed.resetUrl).searchParams.get('token'), newPassword }, requestOf());
}

/** Signs in with the password up to the second step; answers its token. */
async function secondStep({ deps }: Setup, password = 'the mailbox chose this') {
  const result = await login(deps, 'user', { email: 'grace@example.com', password }, requestOf());
  if (result.kind !== 'otp_required') throw new Error(`expected a second step, got ${result.kind}`);
  return result.challengeToken;
}

/** Asks for a recovery from a second step and confirms it from the mailed link, at `now`. */
async function recoverByMail(setup: Setup, now = new Date()) {
  await requestFactorRecovery(setup.deps, { challenge_token: await secondStep(setup) }, requestOf());
  const mailed = setup.deps.outbox.events.filter((e) => e.type === 'account.factor_recovery.requested').at(-1)!.input as { linkUrl: string; email: string };
  expect(mailed.email).toBe('grace@example.com');
  return confirmFactorRecovery(setup.deps, { token: new URL(mailed.linkUrl).searchParams.get('token') }, requestOf(), now);
}

const notices = (setup: Pick<Setup, 'deps'>) => setup.deps.outbox.events.filter((e) => e.type === 'account.security.changed').map((e) => e.input as { change: string; details?: string[] });

describe('a reset by mailed link', () => {
  it('replaces the password and keeps every second factor and way in: the next sign-in still asks for the second step', async () => {
    const setup = await setUp();
    await resetByMail(setup);
    const set = await heldFactors(setup.deps.factors, 'user', setup.owner.id);
    expect(set.totp?.confirmed).toBe(true);
    expect(set.passkeys.map((p) => p.id)).toEqual(['key-1']);
    expect(setup.deps.identities.linked).toHaveLength(1);
    expect(await login(setup.deps, 'user', { email: 'grace@example.com', password: 'the mailbox chose this' }, requestOf())).toMatchObject({ kind: 'otp_required', next: ['totp', 'passkey', 'recovery_code'] });
  });
});

describe('getting back in without the second factors', () => {
  it('needs an open second step: a made-up or used-up challenge is refused and mails nothing', async () => {
    const setup = await setUp();
    await expect(requestFactorRecovery(setup.deps, { challenge_token: 'nope.nope' }, requestOf())).rejects.toMatchObject(AuthErrors.invalidChallenge());
    await expect(requestFactorRecovery(setup.deps, {}, requestOf())).rejects.toMatchObject(AuthErrors.challengeTokenMissing());
    expect(setup.deps.outbox.events.filter((e) => e.type === 'account.factor_recovery.requested')).toEqual([]);
  });

  it('is asked by the flow id of the second step as by its challenge_token', async () => {
    const setup = await setUp();
    await requestFactorRecovery(setup.deps, { flow: await secondStep(setup, 'right password') }, requestOf());
    expect(setup.deps.outbox.events.filter((e) => e.type === 'account.factor_recovery.requested')).toHaveLength(1);
  });

  it('removes nothing when the mailbox confirms: it schedules the removal after the delay and tells the address what will go', async () => {
    const setup = await setUp();
    await resetByMail(setup);
    const now = new Date();
    const recovery = await recoverByMail(setup, now);
    expect(Date.parse(recovery.dueAt) - now.getTime()).toBe(72 * HOUR);
    expect((await heldFactors(setup.deps.factors, 'user', setup.owner.id)).totp?.confirmed).toBe(true);
    const scheduled = notices(setup).find((n) => n.change === 'factor_recovery_scheduled')!;
    expect(scheduled.details).toEqual([expect.stringContaining(recovery.dueAt), expect.stringMatching(/^authenticator app, added /), expect.stringMatching(/^passkey "Laptop", added /), '2 recovery codes']);
    expect(await pendingRecovery(setup.deps, claimsOf('user', setup.owner))).toEqual(recovery);
  });

  it('keeps the first date when asked again, so asking every day never brings it closer', async () => {
    const setup = await setUp();
    await resetByMail(setup);
    const first = await recoverByMail(setup, new Date(Date.now() - 24 * HOUR));
    const again = await recoverByMail(setup);
    expect(again).toEqual(first);
    // Told once, when it was scheduled: asking again tells nothing new.
    expect(notices(setup).filter((n) => n.change === 'factor_recovery_scheduled')).toHaveLength(1);
  });

  it('is reminded at the reminder time and done at the due time: the factors go, every session ends, and the address is told', async () => {
    const setup = await setUp();
    await resetByMail(setup);
    const now = new Date();
    await recoverByMail(setup, now);
    expect(await runFactorRecoveries(setup.deps, new Date(now.getTime() + 47 * HOUR))).toEqual({ reminded: 0, completed: 0 });
    expect(await runFactorRecoveries(setup.deps, new Date(now.getTime() + 49 * HOUR))).toEqual({ reminded: 1, completed: 0 });
    expect(await runFactorRecoveries(setup.deps, new Date(now.getTime() + 50 * HOUR))).toEqual({ reminded: 0, completed: 0 });
    expect((await heldFactors(setup.deps.factors, 'user', setup.owner.id)).totp?.confirmed).toBe(true);
    expect(await runFactorRecoveries(setup.deps, new Date(now.getTime() + 72 * HOUR))).toEqual({ reminded: 0, completed: 1 });
    const set = await heldFactors(setup.deps.factors, 'user', setup.owner.id);
    // The codes go with the last factor they stood in for: none is left to be a second step.
    expect([set.totp, set.passkeys, set.recoveryCodesLeft]).toEqual([null, [], 0]);
    const removed = notices(setup).find((n) => n.change === 'factor_recovery_completed')!;
    expect(removed.details).toEqual([expect.stringMatching(/^Removed: authenticator app/), expect.stringMatching(/^Removed: passkey "Laptop"/), 'Removed: 2 recovery codes']);
    // A way in that is not a second factor stays: the owner removes it once signed in.
    expect(setup.deps.identities.linked).toHaveLength(1);
    const account = (await setup.deps.accounts.user.findById(setup.owner.id))!;
    expect(setup.ended.at(-1)).toEqual({ kind: 'user', accountId: setup.owner.id, credentialEpoch: account.credentialEpoch });
    expect(notices(setup).map((n) => n.change)).toEqual(['factor_recovery_scheduled', 'factor_recovery_reminder', 'factor_recovery_completed']);
    expect(await login(setup.deps, 'user', { email: 'grace@example.com', password: 'the mailbox chose this' }, requestOf())).toMatchObject({ kind: 'session' });
  });

  it('is cancelled by a sign-in that passes a second step with one of the factors, and the address is told', async () => {
    const setup = await setUp();
    await resetByMail(setup);
    const now = new Date();
    await recoverByMail(setup, now);
    await verifyOtp(setup.deps, { challenge_token: await secondStep(setup), code: '000100' }, requestOf());
    expect(await pendingRecovery(setup.deps, claimsOf('user', setup.owner))).toBeNull();
    expect(notices(setup).at(-1)).toEqual(expect.objectContaining({ change: 'factor_recovery_cancelled', details: ['Cancelled by a sign-in with a second factor.'] }));
    expect(await runFactorRecoveries(setup.deps, new Date(now.getTime() + 73 * HOUR))).toEqual({ reminded: 0, completed: 0 });
    expect((await heldFactors(setup.deps.factors, 'user', setup.owner.id)).passkeys).toHaveLength(1);
  });

  it('is cancelled from the owner’s console; cancelling again says nothing was pending', async () => {
    const setup = await setUp();
    await resetByMail(setup);
    await recoverByMail(setup);
    const caller = claimsOf('user', setup.owner);
    expect(await cancelOwnFactorRecovery(setup.deps, caller, requestOf(caller))).toBe(true);
    expect(await cancelOwnFactorRecovery(setup.deps, caller, requestOf(caller))).toBe(false);
    expect(notices(setup).filter((n) => n.change === 'factor_recovery_cancelled')).toHaveLength(1);
  });

  it('is refused from a second step opened under credentials that have changed since, even one still in the store', async () => {
    const setup = await setUp();
    const challenge = await secondStep(setup, 'right password');
    // The credentials move on without the flow store hearing of it (its clean-up failed, say).
    await setup.deps.accounts.user.update(setup.owner.id, { passwordHash: 'h:changed', endSessions: true });
    await expect(requestFactorRecovery(setup.deps, { challenge_token: challenge }, requestOf())).rejects.toMatchObject(AuthErrors.invalidChallenge());
  });

  it('asked under a password that a reset has since replaced, its link no longer schedules anything', async () => {
    const setup = await setUp();
    await requestFactorRecovery(setup.deps, { challenge_token: await secondStep(setup, 'right password') }, requestOf());
    const mailed = setup.deps.outbox.events.find((e) => e.type === 'account.factor_recovery.requested')!.input as { linkUrl: string };
    await resetByMail(setup);
    await expect(confirmFactorRecovery(setup.deps, { token: new URL(mailed.linkUrl).searchParams.get('token') }, requestOf())).rejects.toMatchObject(AuthErrors.linkInvalid());
    expect(await pendingRecovery(setup.deps, claimsOf('user', setup.owner))).toBeNull();
  });
});

describe('a new way in', () => {
  it('is a notice to the owner that names it and where it was added from', async () => {
    const setup = await memorySignIn();
    const owner = await setup.make('user', 'grace@example.com');
    const caller = claimsOf('user', owner);
    await setup.deps.ceremonies.markProof(caller.sid, owner.credentialEpoch);
    await startAuthenticator({ ...setup.deps, qrCodes: { dataUrl: async (text: string) => `data:${text}` } }, caller);
    await confirmAuthenticator(setup.deps, caller, { code: '000100' }, requestOf(caller));
    expect(notices(setup as unknown as Setup)).toEqual([
      expect.objectContaining({ change: 'totp_added', details: ['Added: an authenticator app', 'Added from 192.0.2.1.', expect.stringContaining('remove it')] }),
    ]);
  });
});

describe('the first proof of a user’s address (pre-hijacking)', () => {
  /** Someone registered the victim's address first (unproven) and added their own identity and passkey. */
  async function preHijacked(extra: { emailVerified?: boolean } = {}) {
    const setup = await memorySignIn();
    const account = await setup.make('user', 'victim@example.com', extra);
    await setup.deps.identities.add({ provider: 'idp', subject: 'the-attacker', kind: 'user', accountId: account.id, linkedAt: new Date() });
    await addPasskey(setup.deps.factors, 'user', account.id, { id: 'attacker-key', name: 'Mine', publicKey: 'pk', counter: 0, transports: [] });
    return { ...setup, owner: account } as unknown as Setup;
  }
  /** The passkey, alone, in place of the password. */
  async function passkeyAlone(setup: Setup, id = 'attacker-key') {
    const { options, passkeyToken } = await passkeySignInOptions(setup.deps, 'user', requestOf());
    return passkeyLogin(setup.deps, 'user', { passkey_token: passkeyToken, passkey: { id, response: { signedBy: options.challenge } } }, requestOf());
  }

  it.each([
    ['with EMAIL_VERIFICATION off (the address never asked)', {}],
    ['with EMAIL_VERIFICATION soft (the address not yet proven)', { emailVerified: false }],
  ])('%s, a reset by mailed link removes the identity and stops the passkey signing in alone, and tells the owner', async (_mode, extra) => {
    const setup = await preHijacked(extra);
    expect(await passkeyAlone(setup)).toMatchObject({ kind: 'session' });
    await resetByMail({ ...setup, owner: setup.owner }, 'the victim chose this');
    expect(setup.deps.identities.linked).toEqual([]);
    await expect(passkeyAlone(setup)).rejects.toMatchObject(AuthErrors.passkeyRejected());
    const notice = notices(setup).find((n) => n.change === 'unproven_ways_in_removed')!;
    expect(notice.details).toEqual([expect.stringMatching(/^Removed: sign-in with idp, linked /), expect.stringMatching(/^Passkey "Mine", added .*: no longer signs in by itself/)]);
  });

  it('takes nothing from the mailbox: the suspended passkey still asks for itself as the second step, and answering it there keeps it', async () => {
    const setup = await preHijacked();
    await resetByMail(setup, 'the owner chose this');
    const second = await login(setup.deps, 'user', { email: 'victim@example.com', password: 'the owner chose this' }, requestOf());
    if (second.kind !== 'otp_required') throw new Error(second.kind);
    expect(second.next).toEqual(['passkey']);
    const options = await secondStepPasskeyOptions(setup.deps, { challenge_token: second.challengeToken }, requestOf());
    await verifyOtp(setup.deps, { challenge_token: second.challengeToken, passkey: { id: 'attacker-key', response: { signedBy: options.challenge } } }, requestOf());
    // Whoever holds both the password the mailbox set and the passkey is the owner: it signs in alone again.
    expect(await passkeyAlone(setup)).toMatchObject({ kind: 'session' });
  });

  it('happens once: a later reset, or a proven address, takes nothing', async () => {
    const proven = await preHijacked({ emailVerified: true });
    await resetByMail(proven, 'a new password');
    expect(proven.deps.identities.linked).toHaveLength(1);
    expect(await passkeyAlone(proven)).toMatchObject({ kind: 'session' });

    const once = await preHijacked();
    await resetByMail(once, 'the first password');
    await once.deps.identities.add({ provider: 'idp', subject: 'the-owner', kind: 'user', accountId: once.owner.id, linkedAt: new Date() });
    await resetByMail(once, 'the second password');
    expect(once.deps.identities.linked.map((i) => i.subject)).toEqual(['the-owner']);
  });

  it('is the verification link too, when it is the address’s first answer', async () => {
    const setup = await preHijacked({ emailVerified: false });
    const account = (await setup.deps.accounts.user.findById(setup.owner.id))!;
    await sendVerificationLink(setup.deps, 'user', account, requestOf());
    await verifyEmail(setup.deps, 'user', { token: setup.deps.links.live('verify_email', setup.owner.id)!.token }, requestOf());
    expect(setup.deps.identities.linked).toEqual([]);
    await expect(passkeyAlone(setup)).rejects.toMatchObject(AuthErrors.passkeyRejected());
  });

  it('leaves an admin’s ways in alone: an admin’s address is no stranger’s claim', async () => {
    const setup = await memorySignIn();
    const admin = await setup.make('admin', 'ada@example.com');
    await addPasskey(setup.deps.factors, 'admin', admin.id, { id: 'admin-key', name: 'Key', publicKey: 'pk', counter: 0, transports: [] });
    await mailResetLink(setup.deps, 'admin', (await setup.deps.accounts.admin.findById(admin.id))!);
    const mailed = setup.deps.outbox.events.find((e) => e.type === 'account.password_reset.requested')!.input as { resetUrl: string };
    await resetPassword(setup.deps, 'admin', { token: new URL(mailed.resetUrl).searchParams.get('token'), newPassword: 'the admin chose this' }, requestOf());
    expect((await heldFactors(setup.deps.factors, 'admin', admin.id)).passkeys.map((p) => p.suspended)).toEqual([undefined]);
  });
});
