// Deleting an account on in-memory ports (test/fakes.ts), in milliseconds: what must be proven
// first, the order (the event before the account goes, so a retry finishes what failed half-way),
// everything of the account that goes with it, and the last admin kept. The end-to-end file
// (account-deletion.security) keeps to the contract and the other services dropping their part.
import { AuthErrors } from '../../src/errors';
import { deleteOwnAccount, deleteUser } from '../../src/domain/account/deletion';
import { claimsOf, memorySignIn, requestOf, APP, startApp, heldFactors } from '../fakes';

describe('deleting an account', () => {
  it('by its owner with the password: the event first, then the account, its sessions, flows, factors, identities, links, avatar and history', async () => {
    const setup = await memorySignIn();
    const { deps } = setup;
    const user = await setup.make('user', 'grace@example.com');
    await deps.accounts.user.update(user.id, { avatar: { fileId: 'f1', contentType: 'image/png', size: 1, updatedAt: new Date() } });
    await startApp(deps.factors, 'user', user.id);
    await deps.factors.confirm('user', user.id, APP, 1);
    await deps.identities.add({ provider: 'idp', subject: 's', kind: 'user', accountId: user.id, linkedAt: new Date() });
    await deps.links.store('t'.repeat(43), { purpose: 'verify_email', kind: 'user', accountId: user.id, expiresAt: new Date(Date.now() + 60_000) });
    await deps.activity.record({ kind: 'user', accountId: user.id, type: 'signed_in', at: new Date(), actor: 'owner' } as never);
    let accountAtEvent: unknown = 'not asked';
    const add = deps.outbox.add.bind(deps.outbox);
    deps.outbox.add = async (type, input) => {
      if (type === 'account.deleted') accountAtEvent = await deps.accounts.user.findById(user.id);
      return add(type, input);
    };

    await deleteOwnAccount(deps, claimsOf('user', user), { password: 'right password' }, requestOf());
    expect(accountAtEvent).not.toBeNull();
    expect(deps.outbox.events.find((e) => e.type === 'account.deleted')?.input).toMatchObject({ kind: 'user', accountId: user.id, email: 'grace@example.com' });
    expect(await deps.accounts.user.findById(user.id)).toBeNull();
    // Sessions of any epoch up to one past the account's last are refused.
    expect(setup.ended).toEqual([{ kind: 'user', accountId: user.id, credentialEpoch: user.credentialEpoch + 1 }]);
    expect(await heldFactors(deps.factors, 'user', user.id)).toMatchObject({ totp: null, passkeys: [], recoveryCodesLeft: 0 });
    expect(deps.identities.linked).toEqual([]);
    expect(deps.links.live('verify_email', user.id)).toBeUndefined();
    expect(deps.avatars.removed).toEqual(['f1']);
    expect(deps.activity.entries.filter((e) => e.accountId === user.id).map((e) => e.type)).toEqual(['account_deleted']);
  });

  it('refuses a wrong password, and no password without a recent proof; nothing is deleted', async () => {
    const setup = await memorySignIn();
    const user = await setup.make('user', 'grace@example.com');
    const caller = claimsOf('user', user);
    await expect(deleteOwnAccount(setup.deps, caller, { password: 'wrong' }, requestOf())).rejects.toMatchObject({ code: 'invalid_credentials' });
    await expect(deleteOwnAccount(setup.deps, caller, {}, requestOf())).rejects.toMatchObject(AuthErrors.passwordOrRecentProof());
    expect(await setup.deps.accounts.user.findById(user.id)).not.toBeNull();
    expect(setup.deps.outbox.events).toEqual([]);
    // A proof of the last few minutes stands in for the password.
    await setup.deps.ceremonies.markProof(caller.sid, user.credentialEpoch);
    await deleteOwnAccount(setup.deps, caller, {}, requestOf());
    expect(await setup.deps.accounts.user.findById(user.id)).toBeNull();
  });

  it('keeps the last enabled admin: with another one, an admin may go', async () => {
    const setup = await memorySignIn();
    const first = await setup.make('admin', 'ada@example.com');
    const refusal = AuthErrors.lastAdmin();
    expect([refusal.httpStatus, refusal.message]).toEqual([409, 'The last admin cannot be deleted']);
    await expect(deleteOwnAccount(setup.deps, claimsOf('admin', first), { password: 'right password' }, requestOf())).rejects.toMatchObject(refusal);
    const second = await setup.make('admin', 'bo@example.com');
    await setup.deps.accounts.admin.update(second.id, { disabled: true });
    // A disabled admin manages nothing: still the last.
    await expect(deleteOwnAccount(setup.deps, claimsOf('admin', first), { password: 'right password' }, requestOf())).rejects.toMatchObject(refusal);
    await setup.deps.accounts.admin.update(second.id, { disabled: false });
    await deleteOwnAccount(setup.deps, claimsOf('admin', first), { password: 'right password' }, requestOf());
    expect(await setup.deps.accounts.admin.findById(first.id)).toBeNull();
    await expect(deleteOwnAccount(setup.deps, claimsOf('admin', second), { password: 'right password' }, requestOf())).rejects.toMatchObject(refusal);
  });

  it('by an admin: only with the admin’s recent proof, and once', async () => {
    const setup = await memorySignIn();
    const admin = await setup.make('admin', 'ada@example.com');
    const user = await setup.make('user', 'grace@example.com');
    const actor = claimsOf('admin', admin);
    await expect(deleteUser(setup.deps, user.id, requestOf(actor))).rejects.toMatchObject(AuthErrors.stepUpRequired());
    await setup.deps.ceremonies.markProof(actor.sid, admin.credentialEpoch);
    await deleteUser(setup.deps, user.id, requestOf(actor));
    await expect(deleteUser(setup.deps, user.id, requestOf(actor))).rejects.toMatchObject(AuthErrors.userNotFound());
    expect(setup.deps.activity.entries.filter((e) => e.accountId === user.id).map((e) => e.type)).toEqual(['account_deleted']);
  });
});
