// Which activity entries are cosmetic (shared/activity.ts), on in-memory ports: only the owner's own
// change of name or picture; an admin's act, and anything about how the account signs in, never is.
// The store's trimming by kind is held by mongo-activity.state.test.ts.
import { isCosmetic, noteActivity } from '../../src/domain/shared/activity';
import { MemoryActivity, claimsOf, requestOf, silentLogger } from '../fakes';

describe('isCosmetic', () => {
  it.each([
    [{ type: 'profile_updated', details: ['name'] }, false, true],
    [{ type: 'avatar_replaced' }, false, true],
    [{ type: 'avatar_removed' }, false, true],
    [{ type: 'profile_updated', details: ['name'] }, true, false],
    [{ type: 'profile_updated', details: ['email'] }, false, false],
    [{ type: 'profile_updated', details: ['name', 'password'] }, false, false],
    [{ type: 'signed_in', details: ['method: password'] }, false, false],
    [{ type: 'passkey_added' }, false, false],
  ])('%j, acted by another: %s → %s', (entry, byOther, cosmetic) => {
    expect(isCosmetic(entry, byOther)).toBe(cosmetic);
  });
});

describe('noteActivity', () => {
  it('a thousand name changes by the owner leave the intruder’s sign-in in the history, as one counted entry', async () => {
    const activity = new MemoryActivity(20);
    const deps = { activity, logger: silentLogger };
    const owner = { id: '64b7f0c2a1b2c3d4e5f60718' };
    await noteActivity(deps, requestOf(), { kind: 'user', accountId: owner.id, type: 'signed_in', details: ['method: password'] });
    const ctx = requestOf(claimsOf('user', owner));
    for (let i = 0; i < 1_000; i++) await noteActivity(deps, ctx, { kind: 'user', accountId: owner.id, type: 'profile_updated', details: ['name'] });
    const listed = await activity.list({ kind: 'user', accountId: owner.id, limit: 50 });
    expect(listed.map((e) => [e.type, e.repeated])).toEqual([
      ['profile_updated', 1_000],
      ['signed_in', undefined],
    ]);
  });
});
