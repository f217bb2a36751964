// Changing one's own password on in-memory ports: what the body must hold, the current password
// proven as a login proves it (and counted as one), a common new password refused, and a change
// that ends every session under the old credentials, opens the caller a new one and tells the owner.
// The end-to-end file credentials.security keeps the route's words, its cookie and the old access
// token's end through the revocation feed.
import type { AccountKind } from '@acct/shared';
import { AuthErrors } from '../../src/errors';
import { changePassword } from '../../src/domain/account/password-change';
import { claimsOf, memorySignIn, requestOf } from '../fakes';

const NEW_PASSWORD = 'a brand new passphrase';

async function setUp(kind: AccountKind = 'user') {
  const setup = await memorySignIn();
  const hashed: string[] = [];
  setup.deps.hasher = { ...setup.deps.hasher, hash: async (password) => (hashed.push(password), `h:${password}`) };
  const account = await setup.make(kind, 'grace@example.com');
  return { ...setup, hashed, account, caller: claimsOf(kind, account) };
}

describe('changing one’s password', () => {
  it.each(['user', 'admin'] as const)('with the current password, the %s’s hash is replaced, every session ends, a new one opens for the caller, and the owner is told', async (kind) => {
    const { deps, caller, account, ended, opened, attempts } = await setUp(kind);
    const result = await changePassword(deps, caller, { currentPassword: 'right password', newPassword: NEW_PASSWORD }, requestOf());
    expect(result).toMatchObject({ account: { id: account.id }, accessToken: `access-for-${account.id}`, refreshToken: 'refresh-1' });
    expect(await deps.accounts[kind].findById(account.id)).toMatchObject({ passwordHash: `h:${NEW_PASSWORD}`, credentialEpoch: account.credentialEpoch + 1 });
    expect(ended).toEqual([{ kind, accountId: account.id, credentialEpoch: account.credentialEpoch + 1 }]);
    expect(opened).toEqual([{ kind, accountId: account.id }]);
    expect(attempts).toEqual([`reserve ${kind} grace@example.com`, `succeed ${kind} grace@example.com`]);
    expect(deps.outbox.events).toContainEqual({ type: 'account.security.changed', input: expect.objectContaining({ kind, accountId: account.id, change: 'password_changed' }) });
  });

  it('refuses a wrong current password as a failed login, counted, and changes nothing', async () => {
    const { deps, caller, account, ended, opened, attempts, hashed } = await setUp();
    await expect(changePassword(deps, caller, { currentPassword: 'not the password', newPassword: NEW_PASSWORD }, requestOf())).rejects.toEqual(AuthErrors.invalidCredentials());
    expect(await deps.accounts.user.findById(account.id)).toMatchObject({ passwordHash: 'h:right password', credentialEpoch: account.credentialEpoch });
    expect([ended, opened, hashed]).toEqual([[], [], []]);
    expect(attempts).toEqual(['reserve user grace@example.com']);
  });

  it('is refused while the account’s password guesses are spent, before any compare', async () => {
    const { deps, caller } = await setUp();
    const verify = jest.spyOn(deps.hasher, 'verify');
    deps.loginAttempts.reserve = async () => ({ allowed: false, scope: 'account', retryAfterMs: 30_000 });
    await expect(changePassword(deps, caller, { currentPassword: 'right password', newPassword: NEW_PASSWORD }, requestOf())).rejects.toEqual(AuthErrors.rateLimited(30));
    expect(verify).not.toHaveBeenCalled();
  });

  it('refuses a common new password after the current one is proven, and changes nothing', async () => {
    const { deps, caller, account, hashed } = await setUp();
    await expect(changePassword(deps, caller, { currentPassword: 'right password', newPassword: 'password123' }, requestOf())).rejects.toEqual(AuthErrors.passwordTooCommon());
    expect(hashed).toEqual([]);
    expect((await deps.accounts.user.findById(account.id))?.passwordHash).toBe('h:right password');
  });

  it('is refused to a session whose account is gone', async () => {
    const { deps, caller, account } = await setUp();
    await deps.accounts.user.remove(account.id);
    await expect(changePassword(deps, caller, { currentPassword: 'right password', newPassword: NEW_PASSWORD }, requestOf())).rejects.toEqual(AuthErrors.sessionRevoked());
  });

  // Moved down from the end-to-end file credentials.security (each row registered an account there).
  it.each([
    [{}, AuthErrors.changePasswordMissing()],
    [{ currentPassword: 'right password' }, AuthErrors.changePasswordMissing()],
    [{ currentPassword: '', newPassword: NEW_PASSWORD }, AuthErrors.changePasswordMissing()],
    [{ currentPassword: 42, newPassword: NEW_PASSWORD }, AuthErrors.changePasswordMissing()],
    [{ currentPassword: 'right password', newPassword: null }, AuthErrors.changePasswordMissing()],
    [{ currentPassword: 'right password', newPassword: '' }, AuthErrors.changePasswordMissing()],
    [{ currentPassword: 'right password', newPassword: 'short' }, AuthErrors.passwordPolicy()],
    [{ currentPassword: 'right password', newPassword: 12345678 }, AuthErrors.passwordPolicy()],
    [{ currentPassword: 'right password', newPassword: { length: 12 } }, AuthErrors.passwordPolicy()],
    [{ currentPassword: 'right password', newPassword: [...'12345678'] }, AuthErrors.passwordPolicy()],
    [{ currentPassword: 'right password', newPassword: 'x'.repeat(129) }, AuthErrors.passwordPolicy()],
  ])('answers %j with its 400 before looking at the account', async (body, refusal) => {
    const { deps, caller, attempts } = await setUp();
    await expect(changePassword(deps, caller, body, requestOf())).rejects.toEqual(refusal);
    expect(attempts).toEqual([]);
  });
});
