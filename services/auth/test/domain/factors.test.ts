// The second-factor rules on in-memory ports (test/fakes.ts), in milliseconds: which methods a login
// offers, which method checks a proof (a mailed code before the app's, each time step once, each
// recovery code once, a passkey only for its own account), and what setting one up or removing it
// does. The end-to-end files (second-factors.security, passkeys.browser) keep to the contract.
import type { AccountKind, Logger } from '@acct/shared';
import { AuthErrors } from '../../src/errors';
import { confirmAuthenticator, listOwnFactors, passkeyRegistrationOptions, proveSecondStep, registerPasskey, userFactorSummary, regenerateRecoveryCodes, removeFactor, secondFactorsOf, startAuthenticator, SECOND_STEP_METHODS, factorMethods } from '../../src/domain/factors';
import { relyingPartyFor } from '../../src/domain/factors/common';
import type { AuthPolicy, OpenChallenge, PasskeyCeremonies, Sessions } from '../../src/domain/ports';
import { appCode, MemoryAccounts, MemoryActivity, MemoryIdentities, MemoryCeremonies, MemoryCodeGuesses, MemoryFactors, MemoryOutbox, MemoryAppLogouts, StepTotp, claimsOf, requestOf, silentLogger, APP, CODES, startApp, replaceCodes, addPasskey, heldFactors } from '../fakes';

const rp = { rpId: 'example.com', rpName: 'Example', origins: ['https://example.com'] };

/** Verifies an answer whose `response.signedBy` names the challenge it signed; the counter goes up by one. */
const passkeys: PasskeyCeremonies = {
  originOf: (answer) => (answer as { response?: { origin?: string } }).response?.origin,
  registrationOptions: async () => ({ challenge: 'reg' }),
  verifyRegistration: async () => undefined,
  authenticationOptions: async (_rp, options) => ({ challenge: options.challenge ?? 'any' }),
  verifyAuthentication: async (_rp, answer, challenge, stored) => ((answer as { response: { signedBy?: string } }).response.signedBy === challenge ? { counter: stored.counter + 1 } : undefined),
};

async function setUp() {
  const accounts = new MemoryAccounts();
  const ended: string[] = [];
  const sessions = { revokeOthers: async (_kind: AccountKind, _id: string, keep: string) => (ended.push(`others-than-${keep}`), ['s-2']) } as unknown as Sessions;
  const deps = {
    accounts: { user: accounts, admin: new MemoryAccounts() },
    factors: new MemoryFactors(),
    factorMethods,
    totp: new StepTotp(),
    qrCodes: { dataUrl: async (text: string) => `data:image/png;base64,${Buffer.from(text).toString('base64')}` },
    passkeys,
    ceremonies: new MemoryCeremonies(),
    codeGuesses: new MemoryCodeGuesses(3),
    sessions,
    outbox: new MemoryOutbox(),
    appLogouts: new MemoryAppLogouts(),
    activity: new MemoryActivity(),
    logger: silentLogger,
    policy: { mfa: { totpIssuer: 'Example', webauthn: rp }, emailSignIn: { kinds: [] } } as unknown as AuthPolicy,
    rateLimits: { consume: async () => ({ allowed: true, retryAfterMs: 0 }) },
    metrics: { login() {}, refresh() {}, rateLimited() {}, otp() {} },
  };
  const user = (await accounts.create({ email: 'grace@example.com', name: 'Grace', passwordHash: null, role: 'user' })) as { id: string };
  const caller = claimsOf('user', user);
  return { deps, user, caller, ctx: requestOf(), ended };
}

/** One request at a time, and no linked identities: what a removal's way-in check reads. */
const unlocked = { run: <T>(_name: string, work: () => Promise<T>) => work() };
const noIdentities = new MemoryIdentities();

const challengeFor = (accountId: string, extra: Partial<OpenChallenge> = {}): OpenChallenge => ({ kind: 'user', accountId, isMailedCode: () => false, ...extra });

describe('the methods a login offers', () => {
  it('names the app, then passkeys, then recovery codes, and recovery codes only beside a factor they stand in for', async () => {
    const { deps, user } = await setUp();
    const offered = async () => secondFactorsOf(await deps.factors.list('user', user.id));
    expect(await offered()).toEqual([]);
    await startApp(deps.factors, 'user', user.id);
    expect(await offered()).toEqual([]);
    await replaceCodes(deps.factors, 'user', user.id, ['abcdefghij']);
    expect(await offered()).toEqual([]);
    await deps.factors.confirm('user', user.id, APP, 1);
    expect(await offered()).toEqual(['totp', 'recovery_code']);
    await addPasskey(deps.factors, 'user', user.id, { id: 'pk1', name: 'Laptop', publicKey: 'k', counter: 0, transports: [] });
    expect(await offered()).toEqual(['totp', 'passkey', 'recovery_code']);
    await deps.factors.remove('user', user.id, APP);
    await deps.factors.remove('user', user.id, CODES);
    expect(await offered()).toEqual(['passkey']);
  });

  it('has one method per proof a login takes, each named once (the mailed code by naming none)', () => {
    expect(SECOND_STEP_METHODS.map((m) => m.id)).toEqual([undefined, 'totp', 'passkey', 'recovery_code']);
    expect(new Set(SECOND_STEP_METHODS.map((m) => m.answers))).toEqual(new Set(['code', 'recovery', 'passkey']));
  });
});

describe('the list of factors', () => {
  it('lists every factor from the methods\' registry: the app (waiting for its first code), each passkey by its name, then the recovery codes as the backup', async () => {
    const { deps, user, caller } = await setUp();
    await startApp(deps.factors, 'user', user.id);
    await addPasskey(deps.factors, 'user', user.id, { id: 'cred-1', name: 'Laptop', publicKey: 'pk', counter: 0, transports: [] });
    await replaceCodes(deps.factors, 'user', user.id, ['abcdefghij', 'bcdefghijk']);
    const pending = await listOwnFactors(deps, caller);
    expect(pending.items.map((f) => [f.method, f.id, f.label, f.confirmed, f.role, f.lastUsedAt, f.remaining])).toEqual([
      ['totp', 'totp', 'Authenticator app', false, 'way-in', null, undefined],
      ['passkey', 'cred-1', 'Laptop', true, 'way-in', null, undefined],
      ['recovery_code', 'recovery_code', 'Recovery codes', true, 'backup', null, 2],
    ]);

    // The app's last use is when the step of the last code it took began.
    await deps.factors.confirm('user', user.id, APP, 58_000_000);
    await deps.factors.spend('user', user.id, CODES, 'abcdefghij');
    const live = await listOwnFactors(deps, caller);
    expect(live.items[0]).toMatchObject({ confirmed: true, lastUsedAt: new Date(58_000_000 * 30_000).toISOString() });
    expect(live.items[2]).toMatchObject({ remaining: 1 });
  });

  it('gives an admin the same list without the ids (a passkey’s credential id stays with its owner)', async () => {
    const { deps, user, caller } = await setUp();
    await addPasskey(deps.factors, 'user', user.id, { id: 'cred-1', name: 'Laptop', publicKey: 'pk', counter: 0, transports: [] });
    await replaceCodes(deps.factors, 'user', user.id, ['abcdefghij']);
    const own = (await listOwnFactors(deps, caller)).items;
    const summary = await userFactorSummary(deps, user.id);
    expect(summary.items).toEqual(own.map(({ id: _id, ...entry }) => entry));
    expect(JSON.stringify(summary)).not.toContain('cred-1');
  });

  it('names no recovery codes once the factors they stood in for are gone, and each method has a description', async () => {
    const { deps, user, caller } = await setUp();
    await startApp(deps.factors, 'user', user.id);
    await deps.factors.confirm('user', user.id, APP, 1);
    await replaceCodes(deps.factors, 'user', user.id, ['abcdefghij']);
    await deps.factors.remove('user', user.id, APP);
    expect((await listOwnFactors(deps, caller)).items).toEqual([]);
    expect(SECOND_STEP_METHODS.map((m) => m.description)).toEqual(['A code mailed to the address', 'Authenticator app', 'Passkey', 'Recovery codes']);
  });
});

describe('checking a second step', () => {
  it('takes the mailed code without asking the app, and the app’s code once per time step', async () => {
    const { deps, user, ctx } = await setUp();
    expect(await proveSecondStep(deps, challengeFor(user.id, { isMailedCode: (c) => c === '424242' }), { type: 'code', code: '424242' }, ctx)).toBe(true);
    // No app yet: a code is wrong.
    expect(await proveSecondStep(deps, challengeFor(user.id), { type: 'code', code: appCode(100) }, ctx)).toBe(false);
    await startApp(deps.factors, 'user', user.id);
    await deps.factors.confirm('user', user.id, APP, 98);
    expect(await proveSecondStep(deps, challengeFor(user.id), { type: 'code', code: appCode(100) }, ctx)).toBe(true);
    // The same step again, or an older one after it: correct, but used (no guess counted).
    expect(await proveSecondStep(deps, challengeFor(user.id), { type: 'code', code: appCode(100) }, ctx)).toBe('used');
    expect(await proveSecondStep(deps, challengeFor(user.id), { type: 'code', code: appCode(99) }, ctx)).toBe('used');
    expect(await proveSecondStep(deps, challengeFor(user.id), { type: 'code', code: appCode(101) }, ctx)).toBe(true);
    // Outside the accepted skew.
    expect(await proveSecondStep(deps, challengeFor(user.id), { type: 'code', code: appCode(110) }, ctx)).toBe(false);
  });

  it('uses a recovery code up, tells the owner, and answers a second use as used', async () => {
    const { deps, user, ctx } = await setUp();
    await replaceCodes(deps.factors, 'user', user.id, ['abcdefghij', 'klmnopqrst']);
    expect(await proveSecondStep(deps, challengeFor(user.id), { type: 'recovery', code: 'zzzzzzzzzz' }, ctx)).toBe(false);
    expect(await proveSecondStep(deps, challengeFor(user.id), { type: 'recovery', code: 'abcdefghij' }, ctx)).toBe(true);
    expect(await proveSecondStep(deps, challengeFor(user.id), { type: 'recovery', code: 'abcdefghij' }, ctx)).toBe('used');
    expect((await heldFactors(deps.factors, 'user', user.id)).recoveryCodesLeft).toBe(1);
    expect(deps.outbox.events).toEqual([{ type: 'account.security.changed', input: expect.objectContaining({ change: 'recovery_code_used', accountId: user.id }) }]);
  });

  it('takes a passkey only answering this step’s challenge, and only the challenge account’s own', async () => {
    const { deps, user, ctx } = await setUp();
    const other = (await deps.accounts.user.create({ email: 'eve@example.com', name: 'Eve', passwordHash: null, role: 'user' })) as { id: string };
    await addPasskey(deps.factors, 'user', user.id, { id: 'mine', name: 'Laptop', publicKey: 'k', counter: 5, transports: [] });
    await addPasskey(deps.factors, 'user', other.id, { id: 'theirs', name: 'Phone', publicKey: 'k', counter: 0, transports: [] });
    const answer = (id: string, signedBy: string) => ({ type: 'passkey' as const, response: { id, response: { signedBy } } });
    expect(await proveSecondStep(deps, challengeFor(user.id), answer('mine', 'c1'), ctx)).toBe(false);
    expect(await proveSecondStep(deps, challengeFor(user.id, { webauthnChallenge: 'c1' }), answer('mine', 'c0'), ctx)).toBe(false);
    expect(await proveSecondStep(deps, challengeFor(user.id, { webauthnChallenge: 'c1' }), answer('theirs', 'c1'), ctx)).toBe(false);
    expect(await proveSecondStep(deps, challengeFor(user.id, { webauthnChallenge: 'c1' }), answer('mine', 'c1'), ctx)).toBe(true);
    expect((await deps.factors.find('passkey', 'mine'))?.counter).toBe(6);
  });
});

describe('recovery codes', () => {
  it('regenerated, end the old set: an old code is wrong, a new one answers', async () => {
    const { deps, caller, ctx } = await setUp();
    await deps.ceremonies.markProof(caller.sid, 0);
    await startAuthenticator(deps, caller);
    const { recoveryCodes: old } = await confirmAuthenticator(deps, caller, { code: appCode(100) }, ctx);
    const fresh = await regenerateRecoveryCodes(deps, caller, ctx);
    expect(fresh).toHaveLength(10);
    expect(await proveSecondStep(deps, challengeFor(caller.sub), { type: 'recovery', code: old![0].replace('-', '') }, ctx)).toBe(false);
    expect(await proveSecondStep(deps, challengeFor(caller.sub), { type: 'recovery', code: fresh[0].replace('-', '') }, ctx)).toBe(true);
  });

  it('of a removed last factor never answer again, not even once a new factor brings a new set', async () => {
    const { deps, caller, ctx } = await setUp();
    await deps.ceremonies.markProof(caller.sid, 0);
    await startAuthenticator(deps, caller);
    const { recoveryCodes: old } = await confirmAuthenticator(deps, caller, { code: appCode(100) }, ctx);
    await removeFactor({ ...deps, locks: unlocked, identities: noIdentities }, caller, APP, ctx);
    await startAuthenticator(deps, caller);
    deps.totp.now = 200;
    const { recoveryCodes: fresh } = await confirmAuthenticator(deps, caller, { code: appCode(200) }, ctx);
    expect(await proveSecondStep(deps, challengeFor(caller.sub), { type: 'recovery', code: old![0].replace('-', '') }, ctx)).toBe(false);
    expect(await proveSecondStep(deps, challengeFor(caller.sub), { type: 'recovery', code: fresh![0].replace('-', '') }, ctx)).toBe(true);
  });
});

describe('an account’s own authenticator app', () => {
  it('is set up behind a recent proof, from a QR code of its otpauth URI', async () => {
    const { deps, caller } = await setUp();
    await expect(startAuthenticator(deps, caller)).rejects.toMatchObject({ code: AuthErrors.stepUpRequired().code });
    await deps.ceremonies.markProof(caller.sid, 0);
    const enrolment = await startAuthenticator(deps, caller);
    expect(enrolment.otpauthUrl).toBe('otpauth://totp/Example:grace@example.com?secret=SECRETBASE32');
    expect(Buffer.from(enrolment.qrCode.split(',')[1], 'base64').toString()).toBe(enrolment.otpauthUrl);
  });

  it('goes live with its first right code and brings ten recovery codes; wrong codes spend the account’s one budget', async () => {
    const { deps, caller, ctx } = await setUp();
    await deps.ceremonies.markProof(caller.sid, 0);
    await startAuthenticator(deps, caller);
    for (let i = 0; i < 3; i++) await expect(confirmAuthenticator(deps, caller, { code: appCode(50) }, ctx)).rejects.toMatchObject({ code: 'invalid_otp' });
    // The budget is spent: even the right code waits.
    await expect(confirmAuthenticator(deps, caller, { code: appCode(100) }, ctx)).rejects.toMatchObject({ code: 'rate_limited' });
    deps.codeGuesses.wrong.clear();
    const { recoveryCodes } = await confirmAuthenticator(deps, caller, { code: appCode(100) }, ctx);
    expect(recoveryCodes).toHaveLength(10);
    for (const c of recoveryCodes!) expect(c).toMatch(/^[a-km-np-z2-9]{5}-[a-km-np-z2-9]{5}$/);
    expect(new Set(recoveryCodes).size).toBe(10);
    // The code that made it live is used: the same step cannot sign in.
    expect(await proveSecondStep(deps, challengeFor(caller.sub), { type: 'code', code: appCode(100) }, ctx)).toBe('used');
  });

  it('removed as the last factor, takes the recovery codes with it and ends the other sessions', async () => {
    const { deps, caller, ctx, ended } = await setUp();
    await deps.ceremonies.markProof(caller.sid, 0);
    await startAuthenticator(deps, caller);
    await confirmAuthenticator(deps, caller, { code: appCode(100) }, ctx);
    expect(await removeFactor({ ...deps, locks: unlocked, identities: noIdentities }, caller, APP, ctx)).toBe(1);
    expect(ended).toEqual([`others-than-${caller.sid}`]);
    expect((await heldFactors(deps.factors, 'user', caller.sub)).recoveryCodesLeft).toBe(0);
    await expect(regenerateRecoveryCodes(deps, caller, ctx)).rejects.toMatchObject({ message: AuthErrors.noFactorForRecoveryCodes().message });
    expect(deps.outbox.events.map((e) => (e.input as { change?: string }).change ?? e.type)).toEqual(['totp_added', 'account.sessions.ended', 'totp_removed']);
  });
});

describe('removing a factor by its id', () => {
  it('answers factor_not_found for an enrolment still waiting, for codes (they go with the last factor), and for another account’s passkey', async () => {
    const { deps, caller, ctx, user } = await setUp();
    const removal = { ...deps, locks: unlocked, identities: noIdentities };
    await deps.ceremonies.markProof(caller.sid, 0);
    await startAuthenticator(deps, caller);
    await expect(removeFactor(removal, caller, APP, ctx)).rejects.toMatchObject({ code: 'factor_not_found' });
    await confirmAuthenticator(deps, caller, { code: appCode(100) }, ctx);
    await expect(removeFactor(removal, caller, CODES, ctx)).rejects.toMatchObject({ code: 'factor_not_found' });
    await addPasskey(deps.factors, 'user', 'someone-else', { id: 'theirs', name: 'Phone', publicKey: 'k', counter: 0, transports: [] });
    await expect(removeFactor(removal, caller, { method: 'passkey', id: 'theirs' }, ctx)).rejects.toMatchObject({ code: 'factor_not_found' });
    expect((await deps.factors.list('user', user.id)).map((f) => f.method)).toEqual(['totp', 'recovery_code']);
    expect(await deps.factors.find('passkey', 'theirs')).not.toBeNull();
  });

  it('removes a passkey as it does the app: the codes go with the last factor, and the notice names the method', async () => {
    const { deps, caller, ctx, user } = await setUp();
    const removal = { ...deps, locks: unlocked, identities: noIdentities };
    await deps.accounts.user.update(user.id, { passwordHash: 'h' });
    await deps.ceremonies.markProof(caller.sid, 0);
    await addPasskey(deps.factors, 'user', user.id, { id: 'mine', name: 'Laptop', publicKey: 'k', counter: 0, transports: [] });
    await replaceCodes(deps.factors, 'user', user.id, ['abcdefghij']);
    expect(await removeFactor(removal, caller, { method: 'passkey', id: 'mine' }, ctx)).toBe(1);
    expect(await deps.factors.list('user', user.id)).toEqual([]);
    expect(deps.outbox.events.map((e) => (e.input as { change?: string }).change ?? e.type)).toEqual(['account.sessions.ended', 'passkey_removed']);
  });
});

describe('the page a passkey ceremony ran on', () => {
  const logged: Array<Record<string, unknown>> = [];
  const deps = { passkeys, logger: { warn: (fields: Record<string, unknown>) => void logged.push(fields) } as unknown as Logger };
  const answerFrom = (origin: string) => ({ id: 'k', response: { origin } });

  it('is taken when listed, and narrows the check to that one origin', () => {
    expect(relyingPartyFor(deps, rp, answerFrom('https://example.com')).origins).toEqual(['https://example.com']);
  });

  it('outside production with no list, is any localhost port: the gateway on whatever PORT it was given', () => {
    const development = { rpId: 'localhost', rpName: 'Dev', origins: [], anyLocalhostPort: true };
    expect(relyingPartyFor(deps, development, answerFrom('http://localhost:9090')).origins).toEqual(['http://localhost:9090']);
    expect(() => relyingPartyFor(deps, development, answerFrom('http://localhost.evil.example:9090'))).toThrow(expect.objectContaining({ code: 'passkey_origin_refused' }));
    expect(() => relyingPartyFor(deps, { ...development, anyLocalhostPort: false }, answerFrom('http://localhost:9090'))).toThrow(expect.objectContaining({ code: 'passkey_origin_refused' }));
  });

  it('refused, is named in the log and in the answer', () => {
    logged.length = 0;
    expect(() => relyingPartyFor(deps, rp, answerFrom('https://sub.example.com'))).toThrow(expect.objectContaining({ code: 'passkey_origin_refused', message: expect.stringContaining('https://sub.example.com') }));
    expect(logged).toEqual([{ origin: 'https://sub.example.com', allowed: ['https://example.com'] }]);
  });
});

describe('a passkey of the account’s own', () => {
  /** The authenticator signs the challenge it was given; the verifier takes only an answer for the ceremony's. */
  const created = (id: string, signedBy = 'reg') => ({ id, response: { signedBy } });
  async function withRegistration() {
    const setup = await setUp();
    setup.deps.passkeys = {
      ...passkeys,
      verifyRegistration: async (_rp, answer, challenge) => {
        const { id, response } = answer as ReturnType<typeof created>;
        return response.signedBy === challenge ? { id, publicKey: `key-of-${id}`, counter: 0, transports: ['internal'] } : undefined;
      },
    };
    return setup;
  }

  it('is registered behind a recent proof, answering its session’s ceremony; the first factor brings ten recovery codes, the next none', async () => {
    const { deps, caller, ctx } = await withRegistration();
    await expect(passkeyRegistrationOptions(deps, caller)).rejects.toEqual(AuthErrors.stepUpRequired());
    await deps.ceremonies.markProof(caller.sid, 0);
    expect(await passkeyRegistrationOptions(deps, caller)).toEqual({ challenge: 'reg' });
    expect(deps.ceremonies.pending.get(caller.sid)).toEqual({ challenge: 'reg', kind: 'user', accountId: caller.sub, credentialEpoch: 0 });
    const first = await registerPasskey(deps, caller, { name: '  Laptop  ', passkey: created('cred-1') }, ctx);
    expect(first.passkey).toMatchObject({ id: 'cred-1', name: 'Laptop' });
    expect(first.recoveryCodes).toHaveLength(10);
    expect(await deps.factors.find('passkey', 'cred-1')).toMatchObject({ kind: 'user', accountId: caller.sub, confirmed: true, counter: 0, details: { publicKey: 'key-of-cred-1' } });
    await passkeyRegistrationOptions(deps, caller);
    const second = await registerPasskey(deps, caller, { passkey: created('cred-2') }, ctx);
    expect(second).toEqual({ passkey: expect.objectContaining({ id: 'cred-2', name: 'Passkey' }) });
  });

  it('answers only a ceremony of this session, for this account and kind, begun under its current credentials, and once', async () => {
    const { deps, caller, ctx } = await withRegistration();
    await deps.ceremonies.markProof(caller.sid, 0);
    const register = (id: string) => registerPasskey(deps, caller, { passkey: created(id) }, ctx);
    // None begun in this session (another session of the same account began one).
    const other = { ...caller, sid: 'sid-of-another-session' };
    await deps.ceremonies.markProof(other.sid, 0);
    await passkeyRegistrationOptions(deps, other);
    await expect(register('cred-a')).rejects.toEqual(AuthErrors.passkeyRejected());
    // Begun for another account or the other kind under this session's id.
    for (const state of [{ accountId: 'someone-else', kind: 'user' as const }, { accountId: caller.sub, kind: 'admin' as const }]) {
      await deps.ceremonies.beginRegistration(caller.sid, { challenge: 'reg', credentialEpoch: 0, ...state });
      await expect(register('cred-b')).rejects.toEqual(AuthErrors.passkeyRejected());
    }
    // Begun before a change of credentials (the proof renewed since).
    await passkeyRegistrationOptions(deps, caller);
    await deps.accounts.user.update(caller.sub, { passwordHash: 'h:changed', endSessions: true });
    await deps.ceremonies.markProof(caller.sid, 1);
    await expect(register('cred-c')).rejects.toEqual(AuthErrors.passkeyRejected());
    // Answered once: the same ceremony again is rejected.
    await passkeyRegistrationOptions(deps, caller);
    await register('cred-d');
    await expect(register('cred-e')).rejects.toEqual(AuthErrors.passkeyRejected());
    expect((await deps.factors.list('user', caller.sub)).filter((f) => f.method === 'passkey').map((f) => f.id)).toEqual(['cred-d']);
  });

  it('refuses an answer not signed for the ceremony’s challenge, a name outside 1 to 64 characters, and a passkey already registered', async () => {
    const { deps, caller, ctx } = await withRegistration();
    await deps.ceremonies.markProof(caller.sid, 0);
    await passkeyRegistrationOptions(deps, caller);
    await expect(registerPasskey(deps, caller, { passkey: created('cred-1', 'another challenge') }, ctx)).rejects.toEqual(AuthErrors.passkeyRejected());
    for (const name of ['   ', 'x'.repeat(65), 42]) await expect(registerPasskey(deps, caller, { name, passkey: created('cred-1') }, ctx)).rejects.toEqual(AuthErrors.passkeyName());
    for (const [id, name] of [['cred-1', 'x'.repeat(64)], ['cred-2', ' x ']]) {
      await passkeyRegistrationOptions(deps, caller);
      await registerPasskey(deps, caller, { name, passkey: created(id) }, ctx);
    }
    await passkeyRegistrationOptions(deps, caller);
    await expect(registerPasskey(deps, caller, { passkey: created('cred-1') }, ctx)).rejects.toEqual(AuthErrors.passkeyExists());
  });
});
