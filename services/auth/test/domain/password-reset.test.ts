// Password reset's rules on in-memory ports: which queued request is answered with a link, and what a
// link does when it comes back (once, for its own kind, under the credentials it was mailed under,
// ending every session). Its limits are limits.test.ts's; what a reset takes from an address that
// never answered before, mailbox.test.ts's. The tokens' expiry and one live link per account in
// MongoDB are services/auth/test/mongo-reset-tokens.state.test.ts's and the end-to-end file
// password-reset.security's, which keeps the routes' words and the queue's wiring.
import { AuthErrors } from '../../src/errors';
import { answerResetRequest, requestPasswordReset, resetPassword } from '../../src/domain/email/password-reset';
import { memorySignIn, requestOf } from '../fakes';

async function setUp() {
  const setup = await memorySignIn();
  const hashed: string[] = [];
  setup.deps.hasher = { ...setup.deps.hasher, hash: async (password) => (hashed.push(password), `h:${password}`) };
  const warned: string[] = [];
  // The silent logger with its warnings kept (its other levels stay its own).
  setup.deps.logger = Object.assign(Object.create(setup.deps.logger), { warn: (_fields: unknown, message: string) => void warned.push(message) });
  /** Asks for a link as the route does and answers the queue as its worker does; the links mailed. */
  const ask = async (kind: 'user' | 'admin', email: string) => {
    await requestPasswordReset(setup.deps, kind, { email }, requestOf());
    for (let request = await setup.deps.resetRequests.claim(); request; request = await setup.deps.resetRequests.claim()) await answerResetRequest(setup.deps, request);
    return mailed();
  };
  const mailed = () =>
    setup.deps.outbox.events
      .filter((e) => e.type === 'account.password_reset.requested')
      .map((e) => e.input as { kind: string; accountId: string; email: string; resetUrl: string; expiresAt: string });
  const tokenOf = (link: { resetUrl: string }) => new URL(link.resetUrl).searchParams.get('token') as string;
  return { ...setup, hashed, warned, ask, mailed, tokenOf };
}

describe('a reset link', () => {
  it('is mailed to an enabled account’s address, to the kind’s page, for the policy’s lifetime', async () => {
    const { make, ask, tokenOf } = await setUp();
    const grace = await make('user', 'grace@example.com');
    const before = Date.now();
    const [link] = await ask('user', 'grace@example.com');
    const after = Date.now();
    expect(link).toMatchObject({ kind: 'user', accountId: grace.id, email: 'grace@example.com', resetUrl: expect.stringMatching(/^https:\/\/app\.example\/reset\?token=[\w-]{43}$/) });
    expect(Date.parse(link.expiresAt)).toBeGreaterThanOrEqual(before + 1_800_000);
    expect(Date.parse(link.expiresAt)).toBeLessThanOrEqual(after + 1_800_000);
    const admin = await make('admin', 'ada@example.com');
    const [, adminLink] = await ask('admin', 'ada@example.com');
    expect(adminLink).toMatchObject({ kind: 'admin', accountId: admin.id, resetUrl: expect.stringMatching(/^https:\/\/admin\.example\/reset\?token=/) });
    expect(tokenOf(adminLink)).not.toBe(tokenOf(link));
  });

  it('is mailed to no unknown address, no disabled account and no address of the other kind', async () => {
    const { deps, make, ask, mailed } = await setUp();
    await deps.accounts.user.update((await make('user', 'off@example.com')).id, { disabled: true });
    await make('admin', 'ada@example.com');
    await ask('user', 'nobody@example.com');
    await ask('user', 'off@example.com');
    await ask('user', 'ada@example.com');
    expect(mailed()).toEqual([]);
  });

  it('is not mailed once the address’s mail budget is spent, and the worker says so in its log', async () => {
    const { deps, make, mailed, warned } = await setUp();
    await make('user', 'grace@example.com');
    await deps.resetRequests.enqueue({ kind: 'user', email: 'grace@example.com', ip: '192.0.2.1', requestId: 'r1', mail: false });
    await answerResetRequest(deps, (await deps.resetRequests.claim())!);
    expect(mailed()).toEqual([]);
    expect(warned).toEqual(['Reset mail budget of this address is spent; no link sent']);
  });
});

describe('a reset', () => {
  it('replaces the password, ends every session under the old credentials, and works once', async () => {
    const { deps, make, ask, tokenOf, ended, hashed } = await setUp();
    const grace = await make('user', 'grace@example.com');
    const [link] = await ask('user', 'grace@example.com');
    await resetPassword(deps, 'user', { token: tokenOf(link), newPassword: 'a brand new secret' }, requestOf());
    const account = await deps.accounts.user.findById(grace.id);
    expect(account).toMatchObject({ passwordHash: 'h:a brand new secret', credentialEpoch: grace.credentialEpoch + 1 });
    expect(ended).toEqual([{ kind: 'user', accountId: grace.id, credentialEpoch: grace.credentialEpoch + 1 }]);
    expect(hashed).toEqual(['a brand new secret']);
    expect(deps.outbox.events.map((e) => e.type)).toContain('account.password_reset.completed');
    await expect(resetPassword(deps, 'user', { token: tokenOf(link), newPassword: 'another new secret' }, requestOf())).rejects.toEqual(AuthErrors.resetInvalid());
    expect((await deps.accounts.user.findById(grace.id))?.passwordHash).toBe('h:a brand new secret');
  });

  it('refuses a made-up token before any password work', async () => {
    const { deps, hashed } = await setUp();
    await expect(resetPassword(deps, 'user', { token: 'made-up', newPassword: 'a brand new secret' }, requestOf())).rejects.toEqual(AuthErrors.resetInvalid());
    expect(hashed).toEqual([]);
  });

  it('refuses a user’s token on the admin route without using it up', async () => {
    const { deps, make, ask, tokenOf } = await setUp();
    await make('user', 'grace@example.com');
    const [link] = await ask('user', 'grace@example.com');
    await expect(resetPassword(deps, 'admin', { token: tokenOf(link), newPassword: 'a brand new secret' }, requestOf())).rejects.toEqual(AuthErrors.resetInvalid());
    await expect(resetPassword(deps, 'user', { token: tokenOf(link), newPassword: 'a brand new secret' }, requestOf())).resolves.toBeUndefined();
  });

  it('refuses a token past its lifetime', async () => {
    const { deps, make, ask, tokenOf } = await setUp();
    await make('user', 'grace@example.com');
    const token = tokenOf((await ask('user', 'grace@example.com'))[0]);
    deps.resets.tokens.get(token)!.expiresAt = new Date(Date.now() - 1);
    await expect(resetPassword(deps, 'user', { token, newPassword: 'a brand new secret' }, requestOf())).rejects.toEqual(AuthErrors.resetInvalid());
  });

  it('refuses a link mailed under credentials that changed since (a password set, another reset), and uses it up', async () => {
    const { deps, make, ask, tokenOf, ended } = await setUp();
    const grace = await make('user', 'grace@example.com');
    const token = tokenOf((await ask('user', 'grace@example.com'))[0]);
    await deps.accounts.user.update(grace.id, { passwordHash: 'h:changed meanwhile', endSessions: true });
    await expect(resetPassword(deps, 'user', { token, newPassword: 'a brand new secret' }, requestOf())).rejects.toEqual(AuthErrors.resetInvalid());
    expect((await deps.accounts.user.findById(grace.id))?.passwordHash).toBe('h:changed meanwhile');
    expect(ended).toEqual([]);
    expect(deps.resets.tokens.has(token)).toBe(false);
  });

  it('refuses a common password without using the link up', async () => {
    const { deps, make, ask, tokenOf } = await setUp();
    await make('user', 'grace@example.com');
    const token = tokenOf((await ask('user', 'grace@example.com'))[0]);
    await expect(resetPassword(deps, 'user', { token, newPassword: 'password123' }, requestOf())).rejects.toEqual(AuthErrors.passwordTooCommon());
    await expect(resetPassword(deps, 'user', { token, newPassword: 'a brand new secret' }, requestOf())).resolves.toBeUndefined();
  });
});
