// An admin's update of a user on in-memory ports (PUT /api/admin/users/{user_id}): what the body may
// hold, what each change does (a disable or a new password ends every session; a new address is
// proven by a link and the old one is told, with its undo), and what the user's history records.
// Which of these acts need the admin's recent proof is the route table's (test/repo/route-proof);
// the end-to-end file admin.response keeps the route's words, its access and a disabled login.
import { AuthErrors } from '../../src/errors';
import { getUser, updateUser } from '../../src/domain/admin/users';
import { claimsOf, memorySignIn, requestOf } from '../fakes';

async function setUp(emailVerification: 'off' | 'soft' | 'required' = 'soft') {
  const setup = await memorySignIn();
  setup.deps.policy = { ...setup.deps.policy, emailVerification };
  const user = await setup.make('user', 'grace@example.com', { emailVerified: true });
  const admin = await setup.make('admin', 'ada@example.com');
  const ctx = { ...requestOf(), actor: claimsOf('admin', admin) };
  const events = (type: string) => setup.deps.outbox.events.filter((e) => e.type === type).map((e) => e.input as Record<string, unknown>);
  return { ...setup, user, admin, ctx, events };
}

describe('an admin’s update of a user', () => {
  it('renames, trimmed, and records which fields changed (never their values) with the admin who changed them, ending no session', async () => {
    const { deps, user, admin, ctx, ended } = await setUp();
    const record = await updateUser(deps, user.id, { name: '  Grace H  ' }, ctx);
    expect(record).toMatchObject({ id: user.id, name: 'Grace H', email: 'grace@example.com' });
    expect(record).not.toHaveProperty('passwordHash');
    expect(deps.activity.entries.map((e) => [e.type, e.details, e.actor])).toEqual([['profile_updated', ['name'], { kind: 'admin', id: admin.id }]]);
    expect(ended).toEqual([]);
  });

  it('moves the address, in lower case, unproven until its link answers, and tells the old address with its undo', async () => {
    const { deps, user, ctx, events } = await setUp('soft');
    const record = await updateUser(deps, user.id, { email: 'Grace.New@Example.com' }, ctx);
    expect(record).toMatchObject({ email: 'grace.new@example.com', emailVerified: false });
    expect(events('account.email_verification.requested')).toEqual([expect.objectContaining({ accountId: user.id, email: 'grace.new@example.com' })]);
    expect(events('account.email_change.completed')).toEqual([expect.objectContaining({ accountId: user.id, email: 'grace@example.com', newEmail: 'grace.new@example.com' })]);
  });

  it('where the deployment verifies no address, moves it with no link and leaves its proof as it was', async () => {
    const { deps, user, ctx, events } = await setUp('off');
    expect(await updateUser(deps, user.id, { email: 'grace.new@example.com' }, ctx)).toMatchObject({ email: 'grace.new@example.com', emailVerified: true });
    expect(events('account.email_verification.requested')).toEqual([]);
    expect(events('account.email_change.completed')).toHaveLength(1);
  });

  it('refuses an address another account holds, or holds for an undo, with 409, changing nothing', async () => {
    const { deps, make, user, ctx } = await setUp();
    await make('user', 'taken@example.com');
    deps.links.heldFor = async (_kind, email) => (email === 'taken@example.com' ? 'someone-else' : email === 'held@example.com' ? 'the-undo-owner' : undefined);
    for (const email of ['taken@example.com', 'held@example.com']) await expect(updateUser(deps, user.id, { email }, ctx)).rejects.toEqual(AuthErrors.emailTaken());
    expect((await deps.accounts.user.findById(user.id))?.email).toBe('grace@example.com');
  });

  it('disables the account and ends every session; enabling it again ends none', async () => {
    const { deps, user, ctx, ended } = await setUp();
    expect(await updateUser(deps, user.id, { disabled: true }, ctx)).toMatchObject({ disabled: true });
    expect(ended).toEqual([{ kind: 'user', accountId: user.id, credentialEpoch: user.credentialEpoch + 1 }]);
    expect(await updateUser(deps, user.id, { disabled: false }, ctx)).toMatchObject({ disabled: false });
    expect(ended).toHaveLength(1);
    expect(deps.activity.entries.map((e) => [e.type, e.details])).toEqual([
      ['profile_updated', ['disabled']],
      ['sessions_ended', ['every session']],
      ['profile_updated', ['enabled']],
    ]);
  });

  it('sets a password, hashed, ending every session; a common one is refused', async () => {
    const { deps, user, ctx, ended } = await setUp();
    await expect(updateUser(deps, user.id, { password: 'password123' }, ctx)).rejects.toEqual(AuthErrors.passwordTooCommon());
    expect(ended).toEqual([]);
    await updateUser(deps, user.id, { password: 'set by the admin' }, ctx);
    expect((await deps.accounts.user.findById(user.id))?.passwordHash).toBe('h:set by the admin');
    expect(ended).toEqual([{ kind: 'user', accountId: user.id, credentialEpoch: user.credentialEpoch + 1 }]);
    expect(deps.activity.entries.map((e) => [e.type, e.details])).toEqual([
      ['profile_updated', ['password']],
      ['sessions_ended', ['every session']],
    ]);
  });

  it.each([
    ['nothing to change', {}, AuthErrors.nothingToUpdate()],
    ['only fields it does not change', { role: 'admin' }, AuthErrors.nothingToUpdate()],
    ['a name of one character', { name: 'x' }, AuthErrors.nameLength()],
    ['an address that is not one', { email: 'nope' }, AuthErrors.emailFormat()],
    ['`disabled` as text', { disabled: 'yes' }, AuthErrors.disabledNotBoolean()],
    ['a short password', { password: 'short' }, AuthErrors.passwordPolicy()],
    ['a password that is not text', { password: 12345678 }, AuthErrors.passwordPolicy()],
    ['one bad field beside good ones', { name: 'Grace H', disabled: 1 }, AuthErrors.disabledNotBoolean()],
  ])('refuses %s with its 400, changing nothing', async (_name, body, refusal) => {
    const { deps, user, ctx, ended } = await setUp();
    await expect(updateUser(deps, user.id, body, ctx)).rejects.toEqual(refusal);
    expect(await deps.accounts.user.findById(user.id)).toMatchObject({ name: 'Grace', disabled: false });
    expect([deps.activity.entries, ended]).toEqual([[], []]);
  });

  it('answers 400 for a malformed id and 404 for an unknown one', async () => {
    const { deps, ctx } = await setUp();
    for (const id of ['not-an-id', 'abcdefghijkl']) await expect(updateUser(deps, id, { name: 'Valid' }, ctx)).rejects.toEqual(AuthErrors.badUserId());
    await expect(updateUser(deps, '0123456789abcdef01234567', { name: 'Valid' }, ctx)).rejects.toEqual(AuthErrors.userNotFound());
  });

  it('is read back as the user’s record; a malformed id is 400, an unknown one 404', async () => {
    const { deps, user } = await setUp();
    expect(await getUser(deps, user.id)).toMatchObject({ id: user.id, email: 'grace@example.com' });
    await expect(getUser(deps, 'not-an-id')).rejects.toEqual(AuthErrors.badUserId());
    await expect(getUser(deps, '0123456789abcdef01234567')).rejects.toEqual(AuthErrors.userNotFound());
  });
});
