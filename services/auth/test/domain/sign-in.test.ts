// The sign-in's rules on in-memory ports (test/fakes.ts), in milliseconds: what a login answers and
// opens for each kind of account, the one flow a sign-in in progress is (what it has proven, what
// comes next, its lifetime, its attempts), the second step's single use and its end at a credential
// change, and a passkey sign-in's flow taken once. The end-to-end files (notifications.message-queue,
// second-factors.security, passkeys.browser, identity-providers.security) keep to the contract and
// the wiring.
import { AuthErrors } from '../../src/errors';
import { login, passkeyLogin, verifyOtp } from '../../src/domain/sign-in/login';
import { passkeySignInOptions } from '../../src/domain/sign-in/passkey-sign-in';
import { appCode, memorySignIn as setUp, requestOf, APP, startApp, replaceCodes, addPasskey, heldFactors } from '../fakes';

const body = (email: string, password = 'right password') => ({ email, password });

describe('a login', () => {
  it('opens a session for an account without a second step, pushes a user’s login, and records how', async () => {
    const { deps, make, opened } = await setUp();
    const user = await make('user', 'grace@example.com');
    const result = await login(deps, 'user', body('grace@example.com'), requestOf());
    expect(result).toMatchObject({ kind: 'session', accessToken: `access-for-${user.id}`, refreshToken: 'refresh-1' });
    expect(opened).toEqual([{ kind: 'user', accountId: user.id }]);
    expect(deps.outbox.events.map((e) => e.type)).toEqual(['user.login.succeeded']);
    expect(deps.activity.entries.map((e) => [e.type, e.details])).toEqual([['signed_in', ['method: password']]]);
    expect(deps.flows.flows.size).toBe(0);
  });

  it('refuses a wrong password with the account’s history noting it, and an unknown address alike', async () => {
    const { deps, make, attempts } = await setUp();
    await make('user', 'grace@example.com');
    await expect(login(deps, 'user', body('grace@example.com', 'wrong password'), requestOf())).rejects.toMatchObject(AuthErrors.invalidCredentials());
    await expect(login(deps, 'user', body('nobody@example.com'), requestOf())).rejects.toMatchObject(AuthErrors.invalidCredentials());
    expect(deps.activity.entries.map((e) => [e.type, e.details])).toEqual([['sign_in_failed', ['method: password']]]);
    // Each attempt was counted before the compare, and none was given back or cleared.
    expect(attempts).toEqual(['reserve user grace@example.com', 'reserve user nobody@example.com']);
  });

  // Moved from the end-to-end login file (which spied on bcrypt through the stack): what a guesser
  // can time. The real hasher's `burn` is one bcrypt compare (test/passwords.test.ts).
  it('spends exactly one password compare for an unknown address, as for a wrong password: the unknown one burns, the known one verifies', async () => {
    const { deps, make } = await setUp();
    await make('user', 'grace@example.com');
    const spent: string[] = [];
    deps.hasher = {
      ...deps.hasher,
      verify: async (password, hash) => (spent.push('verify'), hash === `h:${password}`),
      burn: async () => void spent.push('burn'),
    };
    await expect(login(deps, 'user', body('nobody@example.com'), requestOf())).rejects.toMatchObject(AuthErrors.invalidCredentials());
    expect(spent).toEqual(['burn']);
    spent.length = 0;
    await expect(login(deps, 'user', body('grace@example.com', 'wrong password'), requestOf())).rejects.toMatchObject(AuthErrors.invalidCredentials());
    expect(spent).toEqual(['verify']);
  });

  it('opens a second step with the account’s own factors named as what comes next, and no session', async () => {
    const { deps, make, opened } = await setUp();
    const user = await make('user', 'grace@example.com');
    await startApp(deps.factors, 'user', user.id);
    await deps.factors.confirm('user', user.id, APP, 1);
    const result = await login(deps, 'user', body('grace@example.com'), requestOf());
    expect(result).toMatchObject({ kind: 'otp_required', expiresInSeconds: 300, next: ['totp'], factors: ['totp'] });
    expect(opened).toEqual([]);
    const [flow] = [...deps.flows.flows.values()];
    expect(flow).toMatchObject({ purpose: 'second_step', kind: 'user', accountId: user.id, credentialEpoch: user.credentialEpoch, proven: ['password'], next: ['totp'], attempts: 0 });
    expect(flow.expiresAt.getTime() - Date.now()).toBeGreaterThan(299_000);
  });

  it('mails no code to an admin with an app of their own: the app answers, whatever the admin’s second-factor setting', async () => {
    const { deps, make } = await setUp();
    const admin = await make('admin', 'ada@example.com', { twoFactorEnabled: true });
    await startApp(deps.factors, 'admin', admin.id);
    await deps.factors.confirm('admin', admin.id, APP, 1);
    expect(await login(deps, 'admin', body('ada@example.com'), requestOf())).toMatchObject({ kind: 'otp_required', next: ['totp'], factors: ['totp'] });
    expect(deps.outbox.events).toEqual([]);
    const [flow] = [...deps.flows.flows.values()];
    expect(flow.code).toBeUndefined();
  });

  it('mails an admin with the second factor on a code, names it as next, and opens nothing when the mail cannot be queued', async () => {
    const { deps, make } = await setUp();
    const admin = await make('admin', 'ada@example.com', { twoFactorEnabled: true });
    const result = await login(deps, 'admin', body('ada@example.com'), requestOf());
    expect(result).toMatchObject({ kind: 'otp_required', next: ['email_code'] });
    expect(result).not.toHaveProperty('factors');
    const mailed = deps.outbox.events.find((e) => e.type === 'admin.otp.requested')?.input as { adminId: string; code: string };
    expect(mailed).toMatchObject({ adminId: admin.id, code: expect.stringMatching(/^\d{6}$/) });

    deps.outbox.add = async () => {
      throw new Error('broker gone');
    };
    await expect(login(deps, 'admin', body('ada@example.com'), requestOf())).rejects.toThrow('broker gone');
    // The new flow was cancelled, and it had ended the older one: nothing is open to guesses.
    expect(deps.flows.flows.size).toBe(0);
  });
});

describe('who may sign in', () => {
  it('refuses a disabled account after the right password, and opens nothing', async () => {
    const { deps, make, opened } = await setUp();
    const user = await make('user', 'grace@example.com');
    await deps.accounts.user.update(user.id, { disabled: true });
    await expect(login(deps, 'user', body('grace@example.com'), requestOf())).rejects.toEqual(AuthErrors.accountDisabled());
    await expect(login(deps, 'user', body('grace@example.com', 'wrong password'), requestOf())).rejects.toEqual(AuthErrors.invalidCredentials());
    expect(opened).toEqual([]);
  });

  it.each([
    ['required', 'user', false, 'refused'],
    ['required', 'user', true, 'opened'],
    ['required', 'user', undefined, 'opened'],
    ['required', 'admin', false, 'opened'],
    ['soft', 'user', false, 'opened'],
    ['off', 'user', false, 'opened'],
  ] as const)('with verification %s, the %s’s sign-in with its address proven %s is %s', async (verification, kind, emailVerified, outcome) => {
    const { deps, make, opened } = await setUp();
    deps.policy = { ...deps.policy, emailVerification: verification };
    const counted = jest.spyOn(deps.metrics, 'login');
    await make(kind, 'grace@example.com', emailVerified === undefined ? {} : { emailVerified });
    const signing = login(deps, kind, body('grace@example.com'), requestOf());
    if (outcome === 'refused') {
      await expect(signing).rejects.toEqual(AuthErrors.emailNotVerified());
      expect(opened).toEqual([]);
      expect(counted).toHaveBeenCalledWith('user', 'email_not_verified');
    } else await expect(signing).resolves.toMatchObject({ kind: 'session' });
  });
});

describe('the second step', () => {
  async function pending() {
    const setup = await setUp();
    const admin = await setup.make('admin', 'ada@example.com', { twoFactorEnabled: true });
    const result = await login(setup.deps, 'admin', body('ada@example.com'), requestOf());
    if (result.kind !== 'otp_required') throw new Error(result.kind);
    const code = (setup.deps.outbox.events.at(-1)?.input as { code: string }).code;
    return { ...setup, admin, token: result.challengeToken, code };
  }
  const wrong = (code: string) => String((Number(code) + 1) % 1_000_000).padStart(6, '0');

  it('opens the session once for the right code; the same code again opens nothing', async () => {
    const { deps, admin, token, code, opened } = await pending();
    const session = await verifyOtp(deps, { challenge_token: token, code }, requestOf());
    expect(session).toMatchObject({ kind: 'admin', accessToken: `access-for-${admin.id}` });
    await expect(verifyOtp(deps, { challenge_token: token, code }, requestOf())).rejects.toMatchObject(AuthErrors.invalidChallenge());
    expect(opened).toHaveLength(1);
    expect(deps.activity.entries.at(-1)).toMatchObject({ type: 'signed_in', details: ['second step: a code'] });
  });

  it('counts every wrong code as an attempt, and a flow out of attempts is as gone as a used one', async () => {
    const { deps, token, code } = await pending();
    for (let i = 0; i < 3; i++) await expect(verifyOtp(deps, { challenge_token: token, code: wrong(code) }, requestOf())).rejects.toMatchObject(AuthErrors.invalidCode());
    await expect(verifyOtp(deps, { challenge_token: token, code }, requestOf())).rejects.toMatchObject(AuthErrors.invalidChallenge());
  });

  it('ends when the password changes before the code is given', async () => {
    const { deps, admin, token, code, opened } = await pending();
    await deps.accounts.admin.update(admin.id, { passwordHash: 'h:new password', endSessions: true });
    await expect(verifyOtp(deps, { challenge_token: token, code }, requestOf())).rejects.toMatchObject(AuthErrors.invalidChallenge());
    expect(opened).toHaveLength(0);
  });

  it('ends when the account logs in again, and when its lifetime is over', async () => {
    const { deps, token, code } = await pending();
    const again = await login(deps, 'admin', body('ada@example.com'), requestOf());
    await expect(verifyOtp(deps, { challenge_token: token, code }, requestOf())).rejects.toMatchObject(AuthErrors.invalidChallenge());
    if (again.kind !== 'otp_required') throw new Error(again.kind);
    const newer = (deps.outbox.events.at(-1)?.input as { code: string }).code;
    deps.flows.now = () => Date.now() + 300_001;
    await expect(verifyOtp(deps, { challenge_token: again.challengeToken, code: newer }, requestOf())).rejects.toMatchObject(AuthErrors.invalidChallenge());
  });

  it('refuses a disabled account even with the right code', async () => {
    const { deps, admin, token, code, opened } = await pending();
    await deps.accounts.admin.update(admin.id, { disabled: true });
    await expect(verifyOtp(deps, { challenge_token: token, code }, requestOf())).rejects.toMatchObject(AuthErrors.accountDisabled());
    expect(opened).toHaveLength(0);
  });
});

describe('the second step with the account’s own factors', () => {
  it('counts a wrong recovery code as one of the flow’s attempts, as a wrong code is', async () => {
    const { deps, make } = await setUp();
    const user = await make('user', 'grace@example.com');
    await startApp(deps.factors, 'user', user.id);
    await deps.factors.confirm('user', user.id, APP, 1);
    await replaceCodes(deps.factors, 'user', user.id, ['abcdefghij']);
    const result = await login(deps, 'user', body('grace@example.com'), requestOf());
    if (result.kind !== 'otp_required') throw new Error(result.kind);
    expect(result.next).toEqual(['totp', 'recovery_code']);
    for (let i = 0; i < 3; i++) {
      await expect(verifyOtp(deps, { challenge_token: result.challengeToken, recovery_code: 'zzzzz-zzzzz' }, requestOf())).rejects.toMatchObject(AuthErrors.invalidCode());
    }
    await expect(verifyOtp(deps, { challenge_token: result.challengeToken, recovery_code: 'abcde-fghij' }, requestOf())).rejects.toMatchObject(AuthErrors.invalidChallenge());
    expect((await heldFactors(deps.factors, 'user', user.id)).recoveryCodesLeft).toBe(1);
  });

  it('pushes a user’s login once the second step is passed, and never an admin’s', async () => {
    const { deps, make } = await setUp();
    const pushed = () => deps.outbox.events.filter((e) => e.type === 'user.login.succeeded').map((e) => (e.input as { userId: string }).userId);
    for (const kind of ['user', 'admin'] as const) {
      const account = await make(kind, `${kind}@example.com`);
      await startApp(deps.factors, kind, account.id);
      await deps.factors.confirm(kind, account.id, APP, 1);
      const result = await login(deps, kind, body(`${kind}@example.com`), requestOf());
      if (result.kind !== 'otp_required') throw new Error(result.kind);
      expect(pushed()).toEqual([]);
      await verifyOtp(deps, { challenge_token: result.challengeToken, code: appCode(deps.totp.now) }, requestOf());
      expect(pushed()).toEqual(kind === 'user' ? [account.id] : []);
      deps.outbox.events.length = 0;
    }
  });
});

describe('a sign-in whose answer is no longer awaited (the gateway answered 504, or the client left)', () => {
  /** A request context whose client has gone: its signal is aborted. */
  const abandoned = () => {
    const controller = new AbortController();
    controller.abort();
    return { ...requestOf(), signal: controller.signal };
  };

  it('opens no session from a correct second step or a passkey, and pushes nothing', async () => {
    const { deps, make, opened } = await setUp();
    const user = await make('user', 'grace@example.com');
    await startApp(deps.factors, 'user', user.id);
    await deps.factors.confirm('user', user.id, APP, 1);
    const second = await login(deps, 'user', body('grace@example.com'), requestOf());
    if (second.kind !== 'otp_required') throw new Error(second.kind);
    await expect(verifyOtp(deps, { challenge_token: second.challengeToken, code: '000100' }, abandoned())).rejects.toMatchObject({ code: 'upstream_timeout' });

    await addPasskey(deps.factors, 'user', user.id, { id: 'pk1', name: 'Laptop', publicKey: 'k', counter: 0, transports: [] });
    const { options, passkeyToken } = await passkeySignInOptions(deps, 'user', requestOf());
    const answer = { passkey_token: passkeyToken, passkey: { id: 'pk1', response: { signedBy: options.challenge } } };
    await expect(passkeyLogin(deps, 'user', answer, abandoned())).rejects.toMatchObject({ code: 'upstream_timeout' });

    expect(opened).toEqual([]);
    expect(deps.outbox.events.filter((e) => e.type === 'user.login.succeeded')).toEqual([]);
  });
});

describe('a passkey sign-in', () => {
  it('is found by the flow id its options gave, in place of passkey_token', async () => {
    const { deps, make, opened } = await setUp();
    const user = await make('user', 'grace@example.com');
    await addPasskey(deps.factors, 'user', user.id, { id: 'pk1', name: 'Laptop', publicKey: 'k', counter: 0, transports: [] });
    const { options, passkeyToken } = await passkeySignInOptions(deps, 'user', requestOf());
    const answer = { passkey: { id: 'pk1', response: { signedBy: options.challenge } } };
    await expect(passkeyLogin(deps, 'user', { ...answer, passkey_token: passkeyToken, flow: 'another' }, requestOf())).rejects.toMatchObject({ message: 'passkey_token and flow name different sign-ins: send one of them' });
    expect(await passkeyLogin(deps, 'user', { ...answer, flow: passkeyToken }, requestOf())).toMatchObject({ kind: 'session' });
    expect(opened).toEqual([{ kind: 'user', accountId: user.id }]);
  });

  it('counts the answer as a sign-in, not the options a sign-in page asks for on every view', async () => {
    const { deps, make } = await setUp();
    const spent: string[] = [];
    const counted = { ...deps, rateLimits: { consume: async (name: string) => (spent.push(name), { allowed: true as const }) } };
    const user = await make('user', 'grace@example.com');
    await addPasskey(deps.factors, 'user', user.id, { id: 'pk1', name: 'Laptop', publicKey: 'k', counter: 0, transports: [] });
    // An office behind one address opens the page fifty times.
    let last!: Awaited<ReturnType<typeof passkeySignInOptions>>;
    for (let i = 0; i < 50; i++) last = await passkeySignInOptions(counted, 'user', requestOf());
    expect(spent.filter((n) => n === 'loginIp')).toEqual([]);
    expect(spent.filter((n) => n === 'passkeyOptionsIp')).toHaveLength(50);
    await passkeyLogin(counted, 'user', { passkey_token: last.passkeyToken, passkey: { id: 'pk1', response: { signedBy: last.options.challenge } } }, requestOf());
    expect(spent.filter((n) => n === 'loginIp')).toHaveLength(1);
  });

  it('takes its flow once: the answer to its challenge signs in, a replay of it finds nothing', async () => {
    const { deps, make, opened } = await setUp();
    const user = await make('user', 'grace@example.com');
    await addPasskey(deps.factors, 'user', user.id, { id: 'pk1', name: 'Laptop', publicKey: 'k', counter: 0, transports: [] });
    const { options, passkeyToken } = await passkeySignInOptions(deps, 'user', requestOf());
    const [flow] = [...deps.flows.flows.values()];
    expect(flow).toMatchObject({ purpose: 'passkey', kind: 'user', proven: [], next: ['passkey'], webauthnChallenge: options.challenge });
    const answer = { passkey_token: passkeyToken, passkey: { id: 'pk1', response: { signedBy: options.challenge } } };
    expect(await passkeyLogin(deps, 'user', answer, requestOf())).toMatchObject({ kind: 'session' });
    await expect(passkeyLogin(deps, 'user', answer, requestOf())).rejects.toMatchObject(AuthErrors.passkeyRejected());
    expect(opened).toHaveLength(1);
    expect(deps.activity.entries.at(-1)).toMatchObject({ type: 'signed_in', details: ['method: passkey'] });
  });

  it('is refused on the other kind’s route, and a wrong answer uses the flow up', async () => {
    const { deps, make } = await setUp();
    const user = await make('user', 'grace@example.com');
    await addPasskey(deps.factors, 'user', user.id, { id: 'pk1', name: 'Laptop', publicKey: 'k', counter: 0, transports: [] });
    const first = await passkeySignInOptions(deps, 'user', requestOf());
    await expect(passkeyLogin(deps, 'admin', { passkey_token: first.passkeyToken, passkey: { id: 'pk1', response: { signedBy: first.options.challenge } } }, requestOf())).rejects.toMatchObject(
      AuthErrors.passkeyRejected(),
    );
    const second = await passkeySignInOptions(deps, 'user', requestOf());
    const presented = (signedBy: string) => ({ passkey_token: second.passkeyToken, passkey: { id: 'pk1', response: { signedBy } } });
    await expect(passkeyLogin(deps, 'user', presented('another challenge'), requestOf())).rejects.toMatchObject(AuthErrors.passkeyRejected());
    await expect(passkeyLogin(deps, 'user', presented(second.options.challenge), requestOf())).rejects.toMatchObject(AuthErrors.passkeyRejected());
  });
});
