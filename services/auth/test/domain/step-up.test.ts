// A recent proof and an admin's reset of a user's factors, on in-memory ports. A session earns a
// recent proof (step-up) with the password, counted as a login attempt, or with a code of its own
// authenticator, within the account's one budget of wrong codes and the client's; nothing else earns
// one. An admin resets a user's factors only behind a recent proof of their own, and the reset ends
// every session of the user and tells them. Which acts ask for a recent proof is each act's test
// (factors.test.ts, email-links.test.ts, deletion.test.ts, admin-console.test.ts); how long one
// lasts is the Redis store's (redis-ceremonies.state.test.ts).
import { AuthErrors } from '../../src/errors';
import { reauthenticate } from '../../src/domain/factors/step-up';
import { resetUserFactors } from '../../src/domain/factors/views';
import { appCode, APP, CODES, MemoryRateLimits, addPasskey, claimsOf, memorySignIn, requestOf, startApp } from '../fakes';


async function setUp() {
  const setup = await memorySignIn();
  const rateLimits = new MemoryRateLimits({ otpIp: 10 });
  const deps = Object.assign(setup.deps, { rateLimits });
  const user = await setup.make('user', 'grace@example.com');
  await startApp(deps.factors, 'user', user.id);
  await deps.factors.confirm('user', user.id, APP, 1);
  const caller = claimsOf('user', user);
  const proof = () => deps.ceremonies.recentProof(caller.sid);
  return { ...setup, deps, rateLimits, user, caller, proof };
}

describe('a recent proof', () => {
  it('is earned with the password, counted as a login attempt, under the account’s current credentials', async () => {
    const { deps, caller, proof, attempts, user } = await setUp();
    // The credentials changed once since the account was made (its sessions would have ended; this one is the test's).
    await deps.accounts.user.update(user.id, { passwordHash: 'h:right password', endSessions: true });
    await reauthenticate(deps, caller, { password: 'right password' }, requestOf());
    expect(await proof()).toBe(user.credentialEpoch + 1);
    expect(attempts).toEqual(['reserve user grace@example.com', 'succeed user grace@example.com']);
  });

  it('is earned with a code of the account’s authenticator, each time step once, charged to the client', async () => {
    const { deps, caller, proof, rateLimits } = await setUp();
    await reauthenticate(deps, caller, { code: appCode(deps.totp.now) }, requestOf());
    expect(await proof()).toBe(0);
    deps.ceremonies.proofs.clear();
    await expect(reauthenticate(deps, caller, { code: appCode(deps.totp.now) }, requestOf())).rejects.toEqual(AuthErrors.invalidCode());
    expect(await proof()).toBeUndefined();
    expect(rateLimits.spent).toEqual(['otpIp 192.0.2.1', 'otpIp 192.0.2.1']);
  });

  it('is not earned past the client’s budget of codes', async () => {
    const { deps, caller, proof } = await setUp();
    for (let i = 0; i < 10; i++) await expect(reauthenticate(deps, caller, { code: 'abcdef' }, requestOf())).rejects.toEqual(AuthErrors.otpFormat());
    await expect(reauthenticate(deps, caller, { code: appCode(deps.totp.now) }, requestOf())).rejects.toMatchObject({ code: 'rate_limited', httpStatus: 429 });
    expect(await proof()).toBeUndefined();
  });

  it('is not earned with a wrong password, a wrong code, or a code while the account’s wrong guesses are spent', async () => {
    const { deps, caller, proof } = await setUp();
    await expect(reauthenticate(deps, caller, { password: 'not the password' }, requestOf())).rejects.toEqual(AuthErrors.invalidCredentials());
    for (let i = 0; i < 3; i++) await expect(reauthenticate(deps, caller, { code: '999999' }, requestOf())).rejects.toEqual(AuthErrors.invalidCode());
    await expect(reauthenticate(deps, caller, { code: appCode(deps.totp.now) }, requestOf())).rejects.toMatchObject({ code: 'rate_limited', httpStatus: 429 });
    expect(await proof()).toBeUndefined();
  });

  it('is not earned with a recovery code, nor by an account whose authenticator waits for its first code', async () => {
    const { deps, make, caller, proof } = await setUp();
    await deps.factors.add('user', caller.sub, { ...CODES, confirmed: true, codes: ['abcde23456'] });
    await expect(reauthenticate(deps, caller, { code: 'abcde23456' }, requestOf())).rejects.toEqual(AuthErrors.otpFormat());
    const waiting = await make('user', 'linus@example.com');
    await startApp(deps.factors, 'user', waiting.id);
    const other = claimsOf('user', waiting);
    await expect(reauthenticate(deps, other, { code: appCode(deps.totp.now) }, requestOf())).rejects.toEqual(AuthErrors.invalidCode());
    expect([await proof(), await deps.ceremonies.recentProof(other.sid)]).toEqual([undefined, undefined]);
  });

  it.each([
    ['nothing', {}],
    ['an empty password', { password: '' }],
    ['a password that is not text', { password: 42 }],
  ])('answers %s with what to send, and earns nothing', async (_name, body) => {
    const { deps, caller, proof } = await setUp();
    await expect(reauthenticate(deps, caller, body, requestOf())).rejects.toEqual(AuthErrors.reauthenticateMissing());
    expect(await proof()).toBeUndefined();
  });

  it('answers a code that is not six digits with its 400 before spending the account’s budget', async () => {
    const { deps, caller } = await setUp();
    for (const value of ['12345', '1234567', 'abcdef', 123456]) await expect(reauthenticate(deps, caller, { code: value }, requestOf())).rejects.toEqual(AuthErrors.otpFormat());
    await expect(reauthenticate(deps, caller, { code: null }, requestOf())).rejects.toEqual(AuthErrors.codeMissing());
    await expect(reauthenticate(deps, caller, { code: appCode(deps.totp.now) }, requestOf())).resolves.toBeUndefined();
  });
});

describe('an admin resetting a user’s factors', () => {
  async function withAdmin() {
    const setup = await setUp();
    const admin = await setup.make('admin', 'ada@example.com');
    const actor = claimsOf('admin', admin);
    return { ...setup, admin, actor, ctx: { ...requestOf(), actor } };
  }

  it('needs the admin’s own recent proof, and removes nothing without it', async () => {
    const { deps, user, ctx } = await withAdmin();
    await expect(resetUserFactors(deps, user.id, ctx)).rejects.toEqual(AuthErrors.stepUpRequired());
    await expect(resetUserFactors(deps, user.id, { ...ctx, actor: claimsOf('user', user) })).rejects.toEqual(AuthErrors.stepUpRequired());
    expect((await deps.factors.list('user', user.id)).map((f) => f.method)).toEqual(['totp']);
  });

  it('removes every factor, counting the ways in, ends every session of the user and tells them', async () => {
    const { deps, user, ctx, actor, ended } = await withAdmin();
    await deps.ceremonies.markProof(actor.sid, 0);
    await addPasskey(deps.factors, 'user', user.id, { id: 'cred-1', name: 'Laptop', publicKey: 'key', counter: 0, transports: [] });
    await deps.factors.add('user', user.id, { ...CODES, confirmed: true, codes: ['abcde23456'] });
    // The app and the passkey: the recovery codes are no way in of their own.
    expect(await resetUserFactors(deps, user.id, ctx)).toBe(2);
    expect(await deps.factors.list('user', user.id)).toEqual([]);
    expect(ended).toEqual([{ kind: 'user', accountId: user.id, credentialEpoch: user.credentialEpoch + 1 }]);
    expect(deps.outbox.events).toContainEqual({ type: 'account.security.changed', input: expect.objectContaining({ accountId: user.id, change: 'factors_reset' }) });
    await expect(resetUserFactors(deps, 'ffffffffffffffffffffffff', ctx)).rejects.toEqual(AuthErrors.userNotFound());
  });
});
