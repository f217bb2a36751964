// The identity providers' linking rules on in-memory ports (test/fakes.ts), in milliseconds: which
// account a provider's answer signs in, when an address links and when it never does, a link's flow
// ending with the credentials it started under, an admin only ever through an identity they linked
// and never without a second step, and the flow taken once, only by the browser that started it.
// The end-to-end file (identity-providers.security) keeps to the contract, the ID token's checks
// against a real OpenID provider, and the wiring.
import { completeCallback, startLink, startSignIn } from '../../src/domain/identity/sign-in';
import { claimsOf, memorySignIn, requestOf, APP, startApp } from '../fakes';

type SignIn = Awaited<ReturnType<typeof memorySignIn>>;

/** Starts a user's (or admin's) sign-in and comes back with the provider's answer, from the browser that started it. */
async function roundTrip({ deps }: SignIn, kind: 'user' | 'admin' = 'user', started?: { authorizationUrl: string; binding: string }) {
  const flow = started ?? (await startSignIn(deps, kind, 'idp', undefined));
  const state = new URL(flow.authorizationUrl).searchParams.get('state') ?? '';
  const outcome = await completeCallback(deps, kind, 'idp', new URLSearchParams({ state, code: 'c' }), flow.binding, requestOf());
  return { ...outcome, url: new URL(outcome.location), state, binding: flow.binding };
}

const errorOf = (outcome: { url: URL }) => outcome.url.searchParams.get('error');

describe('which account a provider signs in', () => {
  it('creates a passwordless user the first time, with the session and push of a password login, and the same user after', async () => {
    const setup = await memorySignIn();
    const first = await roundTrip(setup);
    expect(first).toMatchObject({ location: 'https://app.example/', refreshToken: 'refresh-1', flowUsed: true });
    const user = await setup.deps.accounts.user.findByEmail('grace@example.com');
    expect(user).toMatchObject({ passwordHash: null, emailVerified: true, name: 'Grace' });
    expect(setup.deps.identities.linked).toEqual([expect.objectContaining({ provider: 'idp', subject: 'sub-1', kind: 'user', accountId: user!.id })]);
    expect(setup.deps.outbox.events.map((e) => e.type)).toEqual(['user.login.succeeded']);
    expect(setup.deps.activity.entries.at(-1)).toMatchObject({ type: 'signed_in', details: ['method: provider idp'] });
    // The flow's nonce and PKCE verifier went to the provider's check.
    expect(setup.deps.identityProviders.exchanged).toHaveLength(1);

    setup.deps.identityProviders.claims = { ...setup.deps.identityProviders.claims, email: 'renamed@example.com' };
    await roundTrip(setup);
    expect(setup.opened.map((o) => o.accountId)).toEqual([user!.id, user!.id]);
  });

  it('never links an unverified provider address to an existing account', async () => {
    const setup = await memorySignIn();
    await setup.make('user', 'grace@example.com', { emailVerified: true });
    setup.deps.identityProviders.claims = { subject: 'sub-1', email: 'grace@example.com', emailVerified: false, unverified: 'email_verified is false' };
    expect(errorOf(await roundTrip(setup))).toBe('identity_email_unverified');
    expect(setup.deps.identities.linked).toEqual([]);
    expect(setup.opened).toEqual([]);
  });

  it('does not link a verified provider address to an account that never proved it', async () => {
    const setup = await memorySignIn();
    await setup.make('user', 'grace@example.com', { emailVerified: false });
    expect(errorOf(await roundTrip(setup))).toBe('identity_account_exists');
    expect(setup.deps.identities.linked).toEqual([]);
  });

  it('links when both sides proved the address, and tells the owner', async () => {
    const setup = await memorySignIn();
    const user = await setup.make('user', 'grace@example.com', { emailVerified: true });
    expect((await roundTrip(setup)).refreshToken).toBeDefined();
    expect(setup.deps.identities.linked).toEqual([expect.objectContaining({ accountId: user.id })]);
    expect(setup.deps.outbox.events.find((e) => e.type === 'account.security.changed')?.input).toMatchObject({ accountId: user.id, change: 'identity_linked' });
  });

  it('never opens a user account with an admin’s identity', async () => {
    const setup = await memorySignIn();
    const admin = await setup.make('admin', 'ada@example.com');
    await setup.deps.identities.add({ provider: 'idp', subject: 'sub-1', kind: 'admin', accountId: admin.id, linkedAt: new Date() });
    expect(errorOf(await roundTrip(setup))).toBe('identity_taken');
    expect(await setup.deps.accounts.user.findByEmail('grace@example.com')).toBeNull();
  });

  it('sends an account with factors of its own to the second step, with what comes next in the fragment', async () => {
    const setup = await memorySignIn();
    const user = await setup.make('user', 'grace@example.com', { emailVerified: true });
    await startApp(setup.deps.factors, 'user', user.id);
    await setup.deps.factors.confirm('user', user.id, APP, 1);
    const outcome = await roundTrip(setup);
    expect(outcome.refreshToken).toBeUndefined();
    const fragment = new URLSearchParams(outcome.url.hash.slice(1));
    expect(fragment.get('factors')).toBe('totp');
    expect(fragment.get('expires_in')).toBe('300');
    const [flow] = [...setup.deps.flows.flows.values()];
    expect(flow).toMatchObject({ purpose: 'second_step', accountId: user.id, proven: ['provider:idp'], next: ['totp'] });
  });
});

describe('the provider’s flow', () => {
  it('is taken once, and only with the cookie of the browser that started it', async () => {
    const setup = await memorySignIn();
    const started = await startSignIn(setup.deps, 'user', 'idp', 'https://app.example/settings');
    const state = new URL(started.authorizationUrl).searchParams.get('state') ?? '';
    const elsewhere = await completeCallback(setup.deps, 'user', 'idp', new URLSearchParams({ state }), 'another browser', requestOf());
    // Refused to the first app URL, and the flow left to its browser.
    expect([elsewhere.location, elsewhere.flowUsed]).toEqual(['https://app.example/?error=identity_state_invalid', false]);
    const own = await roundTrip(setup, 'user', started);
    expect(own.location).toBe('https://app.example/settings');
    const replay = await roundTrip(setup, 'user', started);
    expect(errorOf(replay)).toBe('identity_state_invalid');
  });

  it('started for a link by the signed-in owner, links the identity whatever address it carries, tells the owner, and linking it again adds nothing', async () => {
    const setup = await memorySignIn();
    const user = await setup.make('user', 'grace@example.com');
    const caller = claimsOf('user', user);
    await setup.deps.ceremonies.markProof(caller.sid, user.credentialEpoch);
    setup.deps.identityProviders.claims = { subject: 'sub-9', email: 'someone.else@example.org', emailVerified: false, name: 'G' };
    const first = await roundTrip(setup, 'user', await startLink(setup.deps, caller, 'idp', {}));
    expect([errorOf(first), first.url.searchParams.get('linked')]).toEqual([null, 'idp']);
    expect(setup.deps.identities.linked).toEqual([expect.objectContaining({ provider: 'idp', subject: 'sub-9', kind: 'user', accountId: user.id, email: undefined })]);
    const noticed = () => setup.deps.outbox.events.filter((e) => e.type === 'account.security.changed').length;
    expect(noticed()).toBe(1);
    const again = await roundTrip(setup, 'user', await startLink(setup.deps, caller, 'idp', {}));
    expect([errorOf(again), again.url.searchParams.get('linked')]).toEqual([null, 'idp']);
    expect(setup.deps.identities.linked).toHaveLength(1);
    expect(noticed()).toBe(1);
  });

  it('started for a link ends with a credential change, and never links another account’s identity', async () => {
    const setup = await memorySignIn();
    const user = await setup.make('user', 'grace@example.com');
    const caller = claimsOf('user', user);
    await setup.deps.ceremonies.markProof(caller.sid, user.credentialEpoch);
    const link = await startLink(setup.deps, caller, 'idp', {});
    await setup.deps.accounts.user.update(user.id, { passwordHash: 'h:new', endSessions: true });
    expect(errorOf(await roundTrip(setup, 'user', link))).toBe('identity_state_invalid');
    expect(setup.deps.identities.linked).toEqual([]);

    const other = await setup.make('user', 'eve@example.com');
    await setup.deps.identities.add({ provider: 'idp', subject: 'sub-1', kind: 'user', accountId: other.id, linkedAt: new Date() });
    const current = (await setup.deps.accounts.user.findById(user.id))!;
    await setup.deps.ceremonies.markProof(caller.sid, current.credentialEpoch);
    expect(errorOf(await roundTrip(setup, 'user', await startLink(setup.deps, caller, 'idp', {})))).toBe('identity_taken');
  });
});

describe('an admin through a provider', () => {
  it('signs in only through an identity they linked, never by a matching address', async () => {
    const setup = await memorySignIn();
    await setup.make('admin', 'grace@example.com', { twoFactorEnabled: true });
    expect(errorOf(await roundTrip(setup, 'admin'))).toBe('identity_not_linked');
    expect(setup.opened).toEqual([]);
  });

  it('always gets the second step: the mailed code when that is on, else refused; never a session', async () => {
    const setup = await memorySignIn();
    const admin = await setup.make('admin', 'ada@example.com', { twoFactorEnabled: true });
    await setup.deps.identities.add({ provider: 'idp', subject: 'sub-1', kind: 'admin', accountId: admin.id, linkedAt: new Date() });
    const mailed = await roundTrip(setup, 'admin');
    expect(new URLSearchParams(mailed.url.hash.slice(1)).get('factors')).toBe('email_code');
    expect(setup.deps.outbox.events.map((e) => e.type)).toEqual(['admin.otp.requested']);

    const bare = await setup.make('admin', 'bo@example.com');
    setup.deps.identityProviders.claims = { subject: 'sub-2', email: 'bo@example.com', emailVerified: true };
    await setup.deps.identities.add({ provider: 'idp', subject: 'sub-2', kind: 'admin', accountId: bare.id, linkedAt: new Date() });
    expect(errorOf(await roundTrip(setup, 'admin'))).toBe('second_factor_required');
    expect(setup.opened).toEqual([]);
  });
});
