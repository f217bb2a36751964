// What a mailed link proves, on in-memory ports (test/fakes.ts), in milliseconds: a change of address
// moves the account only once the new address confirms and only under the credentials it was asked
// under; the old address is held for its undo link; the undo takes the account back whatever came
// after (a later change included), ends every session, drops the password for a mailed reset and
// names every way in the account keeps (a mailbox removes none: shared/mailbox.ts). The end-to-end file (mailbox.security) keeps to the
// contract's answers and the mail going out.
import { AuthErrors } from '../../src/errors';
import { confirmEmailChange, requestEmailChange, undoEmailChange } from '../../src/domain/email/ownership';
import { claimsOf, memorySignIn, requestOf } from '../fakes';

async function setUp() {
  const setup = await memorySignIn();
  const owner = await setup.make('user', 'grace@example.com', { emailVerified: true });
  return { ...setup, owner, caller: claimsOf('user', owner) };
}

type Setup = Awaited<ReturnType<typeof setUp>>;

/** Asks for a change with the password and confirms it from the new address; answers the undo link's token mailed to the address left. */
async function change({ deps, caller }: Setup, newEmail: string, by = caller) {
  await requestEmailChange(deps, by, { newEmail, password: 'right password' }, requestOf());
  const confirm = deps.links.live('change_email', by.sub);
  await confirmEmailChange(deps, 'user', { token: confirm!.token }, requestOf());
  return deps.links.live('undo_email_change', by.sub)!.token;
}

describe('a change of address', () => {
  it('moves the account once the new address confirms, and mails the old one an undo link for a week', async () => {
    const setup = await setUp();
    await requestEmailChange(setup.deps, setup.caller, { newEmail: 'Grace.New@Example.com ', password: 'right password' }, requestOf());
    // Nothing moves before the confirmation.
    expect((await setup.deps.accounts.user.findById(setup.owner.id))?.email).toBe('grace@example.com');
    const confirm = setup.deps.links.live('change_email', setup.owner.id)!;
    expect(confirm.email).toBe('grace.new@example.com');
    const record = await confirmEmailChange(setup.deps, 'user', { token: confirm.token }, requestOf());
    expect(record).toMatchObject({ email: 'grace.new@example.com', emailVerified: true });
    const mailed = setup.deps.outbox.events.find((e) => e.type === 'account.email_change.completed')?.input as { email: string; linkUrl: string; expiresAt: string };
    expect(mailed.email).toBe('grace@example.com');
    expect(new URL(mailed.linkUrl).searchParams.get('action')).toBe('undo');
    expect(Date.parse(mailed.expiresAt) - Date.now()).toBeGreaterThan(604_000_000);
    // The confirmation is used up.
    await expect(confirmEmailChange(setup.deps, 'user', { token: confirm.token }, requestOf())).rejects.toMatchObject(AuthErrors.linkInvalid());
  });

  it('needs the password (or a recent proof), and its confirmation ends with a credential change since it was asked', async () => {
    const setup = await setUp();
    await expect(requestEmailChange(setup.deps, setup.caller, { newEmail: 'new@example.com', password: 'wrong' }, requestOf())).rejects.toMatchObject({ code: 'invalid_credentials' });
    await requestEmailChange(setup.deps, setup.caller, { newEmail: 'new@example.com', password: 'right password' }, requestOf());
    await setup.deps.accounts.user.update(setup.owner.id, { passwordHash: 'h:reset by the owner', endSessions: true });
    const confirm = setup.deps.links.live('change_email', setup.owner.id)!;
    await expect(confirmEmailChange(setup.deps, 'user', { token: confirm.token }, requestOf())).rejects.toMatchObject(AuthErrors.linkInvalid());
    expect((await setup.deps.accounts.user.findById(setup.owner.id))?.email).toBe('grace@example.com');
  });

  it('leaves the old address held for its undo: no other account may move to it meanwhile', async () => {
    const setup = await setUp();
    await change(setup, 'new@example.com');
    const other = await setup.make('user', 'eve@example.com');
    await expect(change(setup, 'grace@example.com', claimsOf('user', other))).rejects.toMatchObject(AuthErrors.emailTaken());
  });
});

describe('the undo', () => {
  it('takes the account back whatever came after, ends every session, drops the password for a mailed reset, and names the ways in it keeps', async () => {
    const setup = await setUp();
    const undo = await change(setup, 'intruder@example.com');
    // Whoever had the password for a moment links a provider and changes the address again.
    await setup.deps.identities.add({ provider: 'idp', subject: 'intruder', kind: 'user', accountId: setup.owner.id, linkedAt: new Date() });
    const laterUndo = await change(setup, 'elsewhere@example.com');

    await undoEmailChange(setup.deps, 'user', { token: undo }, requestOf());
    const restored = (await setup.deps.accounts.user.findById(setup.owner.id))!;
    expect(restored).toMatchObject({ email: 'grace@example.com', passwordHash: null, emailVerified: true });
    expect(restored.credentialEpoch).toBeGreaterThan(setup.owner.credentialEpoch);
    expect(setup.ended).toEqual([{ kind: 'user', accountId: setup.owner.id, credentialEpoch: restored.credentialEpoch }]);
    // A mailbox is one factor: the identity stays, named in the notice for the owner to remove once signed in.
    expect(setup.deps.identities.linked).toHaveLength(1);
    const reset = setup.deps.outbox.events.find((e) => e.type === 'account.password_reset.requested')?.input as { email: string };
    expect(reset.email).toBe('grace@example.com');
    const notice = setup.deps.outbox.events.find((e) => e.type === 'account.security.changed')?.input as { change: string; details: string[] };
    expect(notice).toMatchObject({ change: 'email_change_undone', details: expect.arrayContaining([expect.stringMatching(/^Kept: sign-in with idp, linked /)]) });
    expect(notice.details.some((line) => line.startsWith('Removed'))).toBe(false);
    // The later change's undo was issued after the owner's: it is retired, and cannot take the account away again.
    await expect(undoEmailChange(setup.deps, 'user', { token: laterUndo }, requestOf())).rejects.toMatchObject(AuthErrors.linkInvalid());
    await expect(undoEmailChange(setup.deps, 'user', { token: undo }, requestOf())).rejects.toMatchObject(AuthErrors.linkInvalid());
  });
});
