// Signing in with an emailed link or code (domain/sign-in/email-sign-in.ts) on in-memory ports: the
// same answer and work for every address, one use and one life for the link and the code, the link
// bound to the browser that asked, wrong codes counted per flow and per address, the second step
// still asked for, an admin never signed in by the mailbox alone, and a sign-up by the first link.
// The end-to-end file (email-sign-in.browser) keeps to the wiring: the gateway's flow cookie, the
// notifier's mail, and the pages in Chromium.
import type { AccountKind } from '@acct/shared';
import { AuthErrors } from '../../src/errors';
import { answerEmailSignInRequest, requestEmailSignIn, signInWithEmailCode, signInWithEmailLink } from '../../src/domain/sign-in/email-sign-in';
import { verifyOtp } from '../../src/domain/sign-in/login';
import { appCode, memorySignIn as memoryStores, requestOf, claimsOf, APP, startApp, addPasskey } from '../fakes';
import { removePassword } from '../../src/domain/account/password-change';

/** The in-memory ports with signing in by email on for both kinds. */
async function memorySignIn() {
  const setUp = await memoryStores();
  setUp.deps.policy.emailSignIn = { ...setUp.deps.policy.emailSignIn, kinds: ['user', 'admin'] };
  return setUp;
}
type SetUp = Awaited<ReturnType<typeof memorySignIn>>;

/** Asks for a sign-in and lets the mail's worker answer it: the flow's token, and the link and code mailed (none for an address with no mail due). */
async function ask(deps: SetUp['deps'], kind: AccountKind, email: string) {
  const started = await requestEmailSignIn(deps, kind, { email }, requestOf());
  const before = deps.outbox.events.length;
  const claimed = await deps.resetRequests.claim();
  if (claimed) await answerEmailSignInRequest(deps, claimed);
  const mailed = deps.outbox.events.slice(before).find((e) => e.type === 'account.email_sign_in.requested')?.input as { linkUrl: string; code: string; signUp: boolean; accountId?: string } | undefined;
  const link = mailed ? (new URL(mailed.linkUrl).searchParams.get('email_sign_in') as string) : undefined;
  return { flow: started.flowToken, expiresIn: started.expiresInSeconds, mailed, link, code: mailed?.code };
}

describe('asking for a sign-in by email', () => {
  it('answers alike for an address with an account and one without, and only the worker looks it up and mails', async () => {
    const { deps, make } = await memorySignIn();
    await make('user', 'grace@example.com');
    const known = await requestEmailSignIn(deps, 'user', { email: ' Grace@Example.com ' }, requestOf());
    const unknown = await requestEmailSignIn(deps, 'user', { email: 'nobody@example.com' }, requestOf());
    expect(Object.keys(known)).toEqual(Object.keys(unknown));
    expect(known.expiresInSeconds).toBe(600);
    // Nothing is mailed, nor looked up, while the request is answered.
    expect(deps.outbox.events).toEqual([]);
    expect(deps.resetRequests.queued.map((r) => [r.purpose, r.email, r.flowId])).toEqual([
      ['sign_in', 'grace@example.com', known.flowToken.split('.')[0]],
      ['sign_in', 'nobody@example.com', unknown.flowToken.split('.')[0]],
    ]);
    expect([...deps.flows.flows.values()].map((f) => [f.purpose, f.email, f.accountId])).toEqual([
      ['email', 'grace@example.com', undefined],
      ['email', 'nobody@example.com', undefined],
    ]);
  });

  it('mails a link on the sign-in page and a 6-digit code to an account, and nothing to an address without one', async () => {
    const { deps, make } = await memorySignIn();
    const user = await make('user', 'grace@example.com');
    const asked = await ask(deps, 'user', 'grace@example.com');
    expect(asked.mailed).toMatchObject({ accountId: user.id, signUp: false });
    expect(asked.mailed?.linkUrl).toMatch(/^https:\/\/app\.example\/login\?email_sign_in=/);
    expect(asked.code).toMatch(/^\d{6}$/);
    expect((await ask(deps, 'user', 'nobody@example.com')).mailed).toBeUndefined();
  });

  it('mails nothing to a disabled account, nor past the address’s mail budget', async () => {
    const { deps, make } = await memorySignIn();
    const off = await make('user', 'off@example.com');
    await deps.accounts.user.update(off.id, { disabled: true });
    expect((await ask(deps, 'user', 'off@example.com')).mailed).toBeUndefined();
    await make('user', 'grace@example.com');
    // The per-client limits (the first two) answer 429; the per-address one (the third) only stops the mail.
    let calls = 0;
    deps.rateLimits.consume = (async () => (++calls === 3 ? { allowed: false, retryAfterMs: 60_000 } : { allowed: true })) as unknown as typeof deps.rateLimits.consume;
    expect((await ask(deps, 'user', 'grace@example.com')).mailed).toBeUndefined();
  });

  it('is refused where the deployment has not turned it on for the kind, before anything is counted or opened', async () => {
    const { deps } = await memorySignIn();
    deps.policy.emailSignIn = { ...deps.policy.emailSignIn, kinds: ['user'] };
    await expect(requestEmailSignIn(deps, 'admin', { email: 'ada@example.com' }, requestOf())).rejects.toMatchObject(AuthErrors.emailSignInOff());
    expect(deps.flows.flows.size).toBe(0);
  });

  it('refuses a missing or malformed address with the contract’s 400s', async () => {
    const { deps } = await memorySignIn();
    await expect(requestEmailSignIn(deps, 'user', {}, requestOf())).rejects.toMatchObject(AuthErrors.emailSignInMissing());
    await expect(requestEmailSignIn(deps, 'user', { email: 'not an address' }, requestOf())).rejects.toMatchObject(AuthErrors.emailFormat());
  });
});

describe('the mailed link', () => {
  it('signs in the browser that asked, once, pushing a user’s login and recording how', async () => {
    const { deps, make, opened } = await memorySignIn();
    const user = await make('user', 'grace@example.com');
    const { flow, link } = await ask(deps, 'user', 'grace@example.com');
    expect(await signInWithEmailLink(deps, 'user', { token: link }, flow, requestOf())).toMatchObject({ kind: 'session', accessToken: `access-for-${user.id}` });
    expect(opened).toEqual([{ kind: 'user', accountId: user.id }]);
    expect(deps.outbox.events.map((e) => e.type)).toContain('user.login.succeeded');
    expect(deps.activity.entries.filter((e) => e.type === 'signed_in').map((e) => e.details)).toEqual([['method: email']]);
    await expect(signInWithEmailLink(deps, 'user', { token: link }, flow, requestOf())).rejects.toMatchObject(AuthErrors.emailLinkInvalid());
  });

  it('does not sign in another browser (none, or another flow’s), and stays good for the one that asked', async () => {
    const { deps, make, opened } = await memorySignIn();
    await make('user', 'grace@example.com');
    const { flow, link } = await ask(deps, 'user', 'grace@example.com');
    const attacker = await ask(deps, 'user', 'grace@example.com');
    await expect(signInWithEmailLink(deps, 'user', { token: link }, undefined, requestOf())).rejects.toMatchObject(AuthErrors.emailLinkOtherBrowser());
    await expect(signInWithEmailLink(deps, 'user', { token: link }, attacker.flow, requestOf())).rejects.toMatchObject(AuthErrors.emailLinkOtherBrowser());
    expect(opened).toEqual([]);
    expect(await signInWithEmailLink(deps, 'user', { token: link }, flow, requestOf())).toMatchObject({ kind: 'session' });
  });

  it('cannot sign a victim’s browser into the sender’s account: the victim’s own flow is not the link’s (login CSRF)', async () => {
    const { deps, make, opened } = await memorySignIn();
    await make('user', 'mallory@example.com');
    await make('user', 'victim@example.com');
    const mallory = await ask(deps, 'user', 'mallory@example.com');
    const victim = await ask(deps, 'user', 'victim@example.com');
    await expect(signInWithEmailLink(deps, 'user', { token: mallory.link }, victim.flow, requestOf())).rejects.toMatchObject(AuthErrors.emailLinkOtherBrowser());
    expect(opened).toEqual([]);
  });

  it('is refused once its life is over, on the other kind’s route, and when forged', async () => {
    const { deps, make } = await memorySignIn();
    await make('user', 'grace@example.com');
    const { flow, link } = await ask(deps, 'user', 'grace@example.com');
    await expect(signInWithEmailLink(deps, 'admin', { token: link }, flow, requestOf())).rejects.toMatchObject(AuthErrors.emailLinkInvalid());
    await expect(signInWithEmailLink(deps, 'user', { token: `${flow.split('.')[0]}.forged` }, flow, requestOf())).rejects.toMatchObject(AuthErrors.emailLinkInvalid());
    // The link is still good until its life is over, then gone.
    deps.flows.now = () => Date.now() + 601_000;
    await expect(signInWithEmailLink(deps, 'user', { token: link }, flow, requestOf())).rejects.toMatchObject(AuthErrors.emailLinkInvalid());
    await expect(signInWithEmailLink(deps, 'user', {}, flow, requestOf())).rejects.toMatchObject(AuthErrors.emailLinkMissing());
  });

  it('ends when the account’s credentials change between the mail and its use (a reset, an undo, a disable)', async () => {
    const { deps, make } = await memorySignIn();
    const user = await make('user', 'grace@example.com');
    const { flow, link } = await ask(deps, 'user', 'grace@example.com');
    await deps.accounts.user.update(user.id, { passwordHash: 'h:new', endSessions: true });
    await expect(signInWithEmailLink(deps, 'user', { token: link }, flow, requestOf())).rejects.toMatchObject(AuthErrors.emailLinkInvalid());
  });
});

describe('the mailed code', () => {
  it('signs in the device that asked, and uses the link up with it', async () => {
    const { deps, make } = await memorySignIn();
    const user = await make('user', 'grace@example.com');
    const { flow, code, link } = await ask(deps, 'user', 'grace@example.com');
    expect(await signInWithEmailCode(deps, 'user', { flow, code }, requestOf())).toMatchObject({ kind: 'session', accessToken: `access-for-${user.id}` });
    await expect(signInWithEmailLink(deps, 'user', { token: link }, flow, requestOf())).rejects.toMatchObject(AuthErrors.emailLinkInvalid());
    await expect(signInWithEmailCode(deps, 'user', { flow, code }, requestOf())).rejects.toMatchObject(AuthErrors.invalidChallenge());
  });

  it('takes the flow’s attempts of wrong codes, then is as gone as a used one, even for the right code, and its link with it', async () => {
    const { deps, make } = await memorySignIn();
    await make('user', 'grace@example.com');
    const { flow, code, link } = await ask(deps, 'user', 'grace@example.com');
    const wrong = code === '000000' ? '111111' : '000000';
    // memorySignIn's guesses: 3 a flow, then a wait for the address.
    for (let i = 0; i < 3; i++) await expect(signInWithEmailCode(deps, 'user', { flow, code: wrong }, requestOf())).rejects.toMatchObject(AuthErrors.invalidCode());
    await expect(signInWithEmailCode(deps, 'user', { flow, code }, requestOf())).rejects.toMatchObject(AuthErrors.invalidChallenge());
    // The link of a spent flow is spent with it.
    await expect(signInWithEmailLink(deps, 'user', { token: link }, flow, requestOf())).rejects.toMatchObject(AuthErrors.emailLinkInvalid());
  });

  it('answers an address no account has exactly as one that has: wrong, wrong, wrong, then spent', async () => {
    const answers = async (email: string, withAccount: boolean) => {
      const { deps, make } = await memorySignIn();
      if (withAccount) await make('user', email);
      const { flow } = await ask(deps, 'user', email);
      const seen: string[] = [];
      for (let i = 0; i < 5; i++) seen.push(await signInWithEmailCode(deps, 'user', { flow, code: '123456' }, requestOf()).then(() => 'session', (err: { code: string }) => err.code));
      return seen;
    };
    const known = await answers('grace@example.com', true);
    expect(known).toEqual(await answers('grace@example.com', false));
    expect(known).toEqual(['invalid_otp', 'invalid_otp', 'invalid_otp', 'invalid_challenge', 'invalid_challenge']);
  });

  it('counts wrong codes per address across requests: asking again buys no fresh guesses', async () => {
    const { deps, make } = await memorySignIn();
    await make('user', 'grace@example.com');
    const first = await ask(deps, 'user', 'grace@example.com');
    for (let i = 0; i < 3; i++) await signInWithEmailCode(deps, 'user', { flow: first.flow, code: '000000' === first.code ? '111111' : '000000' }, requestOf()).catch(() => undefined);
    const second = await ask(deps, 'user', 'grace@example.com');
    await expect(signInWithEmailCode(deps, 'user', { flow: second.flow, code: second.code }, requestOf())).rejects.toMatchObject({ code: 'rate_limited' });
  });

  it('refuses a missing flow or code, and a code that is not 6 digits, before an attempt is counted', async () => {
    const { deps, make } = await memorySignIn();
    await make('user', 'grace@example.com');
    const { flow, code } = await ask(deps, 'user', 'grace@example.com');
    await expect(signInWithEmailCode(deps, 'user', { code }, requestOf())).rejects.toMatchObject(AuthErrors.emailCodeMissing());
    await expect(signInWithEmailCode(deps, 'user', { flow }, requestOf())).rejects.toMatchObject(AuthErrors.emailCodeMissing());
    await expect(signInWithEmailCode(deps, 'user', { flow, code: '12ab' }, requestOf())).rejects.toMatchObject(AuthErrors.otpFormat());
    expect(await signInWithEmailCode(deps, 'user', { flow, code }, requestOf())).toMatchObject({ kind: 'session' });
  });
});

describe('a mailbox is one factor', () => {
  it('asks an account with an authenticator app for it after the link, and opens no session before', async () => {
    const { deps, make, opened } = await memorySignIn();
    const user = await make('user', 'grace@example.com');
    await startApp(deps.factors, 'user', user.id);
    await deps.factors.confirm('user', user.id, APP, 1);
    const { flow, link } = await ask(deps, 'user', 'grace@example.com');
    const answer = await signInWithEmailLink(deps, 'user', { token: link }, flow, requestOf());
    expect(answer).toMatchObject({ kind: 'otp_required', next: ['totp'], factors: ['totp'] });
    expect(opened).toEqual([]);
    const secondStep = [...deps.flows.flows.values()].find((f) => f.purpose === 'second_step');
    expect(secondStep).toMatchObject({ accountId: user.id, proven: ['email'], next: ['totp'] });
  });

  it('asks an account with a passkey for it after the code, as the second step', async () => {
    const { deps, make, opened } = await memorySignIn();
    const user = await make('user', 'grace@example.com', { addressProvenAt: new Date() });
    await addPasskey(deps.factors, 'user', user.id, { id: 'pk1', name: 'Laptop', publicKey: 'key', counter: 0, transports: [] });
    const { flow, code } = await ask(deps, 'user', 'grace@example.com');
    expect(await signInWithEmailCode(deps, 'user', { flow, code }, requestOf())).toMatchObject({ kind: 'otp_required', next: ['passkey'] });
    expect(opened).toEqual([]);
  });

  it('never signs an admin in by the mailbox alone: one without a factor of their own is refused, even with the mailed second step on', async () => {
    const { deps, make, opened } = await memorySignIn();
    await make('admin', 'ada@example.com', { twoFactorEnabled: true });
    const { flow, link } = await ask(deps, 'admin', 'ada@example.com');
    await expect(signInWithEmailLink(deps, 'admin', { token: link }, flow, requestOf())).rejects.toMatchObject(AuthErrors.secondFactorRequired());
    expect(opened).toEqual([]);
    // No code was mailed for a second step either.
    expect(deps.outbox.events.map((e) => e.type)).not.toContain('admin.otp.requested');
  });

  it('signs an admin in with their own app after the link, through the second step', async () => {
    const { deps, make } = await memorySignIn();
    const admin = await make('admin', 'ada@example.com');
    await startApp(deps.factors, 'admin', admin.id);
    await deps.factors.confirm('admin', admin.id, APP, 1);
    const { flow, link } = await ask(deps, 'admin', 'ada@example.com');
    const answer = await signInWithEmailLink(deps, 'admin', { token: link }, flow, requestOf());
    if (answer.kind !== 'otp_required') throw new Error('expected a second step');
    expect(await verifyOtp(deps, { challenge_token: answer.challengeToken, code: appCode(deps.totp.now) }, requestOf())).toMatchObject({ kind: 'admin' });
  });

  it('cancels no pending removal of the second factors: only a factor of the account’s own does', async () => {
    const { deps, make } = await memorySignIn();
    const user = await make('user', 'grace@example.com');
    const now = new Date();
    await deps.recoveries.schedule({ kind: 'user', accountId: user.id, requestedAt: now, dueAt: new Date(now.getTime() + 3_600_000), remindAt: now });
    const { flow, link } = await ask(deps, 'user', 'grace@example.com');
    await signInWithEmailLink(deps, 'user', { token: link }, flow, requestOf());
    expect(await deps.recoveries.pendingFor('user', user.id)).toBeDefined();
  });
});

describe('the address answered', () => {
  it('proves the address: an unverified user is verified, and a passkey added before the first proof stops signing in alone', async () => {
    const { deps, make } = await memorySignIn();
    const user = await make('user', 'grace@example.com', { emailVerified: false });
    await addPasskey(deps.factors, 'user', user.id, { id: 'pk1', name: 'Planted', publicKey: 'key', counter: 0, transports: [] });
    const { flow, link } = await ask(deps, 'user', 'grace@example.com');
    // The planted passkey is still a second step (the mailbox removes nothing), but no longer a way in by itself.
    expect(await signInWithEmailLink(deps, 'user', { token: link }, flow, requestOf())).toMatchObject({ kind: 'otp_required', next: ['passkey'] });
    const after = await deps.accounts.user.findById(user.id);
    expect(after).toMatchObject({ emailVerified: true });
    expect(after?.addressProvenAt).toBeInstanceOf(Date);
    expect((await deps.factors.list('user', user.id)).map((f) => f.suspended)).toEqual([true]);
  });
});

describe('a sign-up by email', () => {
  it('makes a passwordless user with a proven address from the first link, where the deployment allows it', async () => {
    const { deps } = await memorySignIn();
    deps.policy.emailSignIn = { ...deps.policy.emailSignIn, signUp: true };
    const { flow, link, mailed } = await ask(deps, 'user', 'new.person@example.com');
    expect(mailed).toMatchObject({ signUp: true, name: '' });
    expect(mailed?.accountId).toBeUndefined();
    expect(await signInWithEmailLink(deps, 'user', { token: link }, flow, requestOf())).toMatchObject({ kind: 'session', account: { email: 'new.person@example.com', name: 'new.person' } });
    const made = await deps.accounts.user.findByEmail('new.person@example.com');
    expect(made).toMatchObject({ passwordHash: null, emailVerified: true });
    expect(made?.addressProvenAt).toBeInstanceOf(Date);
  });

  it('mails no sign-up where the deployment does not allow it, and never makes an admin', async () => {
    const { deps } = await memorySignIn();
    expect((await ask(deps, 'user', 'new.person@example.com')).mailed).toBeUndefined();
    deps.policy.emailSignIn = { ...deps.policy.emailSignIn, signUp: true };
    expect((await ask(deps, 'admin', 'new.admin@example.com')).mailed).toBeUndefined();
  });

  it('makes nothing when the address was registered between the mail and the link', async () => {
    const { deps, make } = await memorySignIn();
    deps.policy.emailSignIn = { ...deps.policy.emailSignIn, signUp: true };
    const { flow, link } = await ask(deps, 'user', 'new.person@example.com');
    await make('user', 'new.person@example.com');
    await expect(signInWithEmailLink(deps, 'user', { token: link }, flow, requestOf())).rejects.toMatchObject(AuthErrors.emailLinkInvalid());
  });
});

describe('turning the password off', () => {
  const withProof = async (deps: SetUp['deps'], account: { id: string; credentialEpoch: number }) => {
    const caller = claimsOf('user', account);
    await deps.ceremonies.markProof(caller.sid, account.credentialEpoch);
    return caller;
  };

  it('is allowed where the mailbox signs in: every session ends, a new one is opened, and the owner is told', async () => {
    const { deps, make, opened, ended } = await memorySignIn();
    const user = await make('user', 'grace@example.com');
    const answer = await removePassword(deps, await withProof(deps, user), requestOf());
    expect(answer).toMatchObject({ accessToken: `access-for-${user.id}` });
    expect((await deps.accounts.user.findById(user.id))?.passwordHash).toBeNull();
    expect(ended.map((e) => e.accountId)).toEqual([user.id]);
    expect(opened).toEqual([{ kind: 'user', accountId: user.id }]);
    const notice = deps.outbox.events.find((e) => e.type === 'account.security.changed')?.input as { change: string };
    expect(notice.change).toBe('password_removed');
    // Nothing left to turn off.
    await expect(removePassword(deps, await withProof(deps, (await deps.accounts.user.findById(user.id))!), requestOf())).rejects.toMatchObject(AuthErrors.noPassword());
  });

  it('is refused where the password is the last way in: no email sign-in for the kind, no passkey, no provider', async () => {
    const { deps, make } = await memoryStores();
    const user = await make('user', 'grace@example.com');
    await expect(removePassword(deps, await withProof(deps, user), requestOf())).rejects.toMatchObject(AuthErrors.lastWayInPassword());
    expect((await deps.accounts.user.findById(user.id))?.passwordHash).toBe('h:right password');
    // A passkey that signs in by itself is another way in.
    await addPasskey(deps.factors, 'user', user.id, { id: 'pk1', name: 'Laptop', publicKey: 'key', counter: 0, transports: [] });
    expect(await removePassword(deps, await withProof(deps, user), requestOf())).toMatchObject({ accessToken: `access-for-${user.id}` });
  });

  it('ends a sign-in with the old password in progress', async () => {
    const { deps, make } = await memorySignIn();
    const user = await make('user', 'grace@example.com');
    await startApp(deps.factors, 'user', user.id);
    await deps.factors.confirm('user', user.id, APP, 1);
    await deps.flows.open({ purpose: 'second_step', kind: 'user', accountId: user.id, credentialEpoch: user.credentialEpoch, proven: ['password'], next: ['totp'] });
    expect([...deps.flows.flows.values()].some((f) => f.purpose === 'second_step')).toBe(true);
    await removePassword(deps, await withProof(deps, user), requestOf());
    expect([...deps.flows.flows.values()].some((f) => f.purpose === 'second_step')).toBe(false);
  });
});
