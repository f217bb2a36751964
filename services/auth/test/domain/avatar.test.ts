// A user's avatar on in-memory ports: its type read from its bytes whatever the upload claimed, one
// image per user (the one it replaces is removed, and a new one that cannot be recorded too), and
// clear refusals. The size limit, the multipart field and GridFS are the end-to-end file
// admin.response's, which stores and serves each type back through the stack.
import { AuthErrors } from '../../src/errors';
import { readAvatar, removeAvatar, replaceAvatar } from '../../src/domain/account/avatar';
import { MemoryAccounts, MemoryActivity, MemoryAvatars, silentLogger } from '../fakes';

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
const PNG = Buffer.concat([Buffer.from(PNG_SIGNATURE), Buffer.alloc(32, 7)]);
const JPEG = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.alloc(32, 1)]);
const WEBP = Buffer.concat([Buffer.from('RIFF'), Buffer.alloc(4), Buffer.from('WEBP'), Buffer.alloc(32, 2)]);

async function setUp() {
  const deps = { accounts: { user: new MemoryAccounts(), admin: new MemoryAccounts() }, avatars: new MemoryAvatars(), activity: new MemoryActivity(), logger: silentLogger };
  const user = (await deps.accounts.user.create({ email: 'grace@example.com', name: 'Grace', passwordHash: null, role: 'user' })) as { id: string };
  return { deps, user };
}

describe('an avatar', () => {
  it.each([
    ['a PNG', PNG, 'image/png'],
    ['a JPEG', JPEG, 'image/jpeg'],
    ['a WebP', WEBP, 'image/webp'],
  ])('is stored as %s by its first bytes, and read back', async (_name, content, contentType) => {
    const { deps, user } = await setUp();
    const record = await replaceAvatar(deps, user.id, { buffer: content });
    expect(record.avatar).toMatchObject({ contentType, size: content.length });
    const back = await readAvatar(deps, user.id);
    expect(back).toMatchObject({ contentType, size: content.length });
    expect(Buffer.concat(await back.stream.toArray())).toEqual(content);
  });

  it.each([
    ['an executable', Buffer.concat([Buffer.from('MZ'), Buffer.alloc(64, 0x90)])],
    ['a GIF', Buffer.from('GIF89a' + 'x'.repeat(32))],
    ['a PNG signature cut short', Buffer.from(PNG_SIGNATURE.slice(0, 7))],
    ['a JPEG marker without its third byte', Buffer.from([0xff, 0xd8, 0x00, 0xe0])],
    ['a RIFF file that is not WebP', Buffer.concat([Buffer.from('RIFF'), Buffer.alloc(4), Buffer.from('WAVE'), Buffer.alloc(8)])],
  ])('is refused as %s with 415, storing nothing', async (_name, content) => {
    const { deps, user } = await setUp();
    await expect(replaceAvatar(deps, user.id, { buffer: content })).rejects.toEqual(AuthErrors.avatarType());
    expect(deps.avatars.files.size).toBe(0);
  });

  it('is refused when no file or an empty one came', async () => {
    const { deps, user } = await setUp();
    await expect(replaceAvatar(deps, user.id, undefined)).rejects.toEqual(AuthErrors.noAvatar());
    await expect(replaceAvatar(deps, user.id, { buffer: Buffer.alloc(0) })).rejects.toEqual(AuthErrors.noAvatar());
  });

  it('replaces the one before, whose image is removed, and is noted in the user’s history', async () => {
    const { deps, user } = await setUp();
    await replaceAvatar(deps, user.id, { buffer: PNG });
    expect((await replaceAvatar(deps, user.id, { buffer: JPEG })).avatar).toMatchObject({ contentType: 'image/jpeg' });
    expect([...deps.avatars.files.values()]).toEqual([JPEG]);
    expect(deps.avatars.removed).toHaveLength(1);
    // A cosmetic change: the second is counted on the first's record.
    expect(deps.activity.entries.map((e) => [e.type, e.repeated])).toEqual([['avatar_replaced', 2]]);
  });

  it('of a user who went while it was stored is removed again, and the answer is 404', async () => {
    const { deps, user } = await setUp();
    const update = deps.accounts.user.update.bind(deps.accounts.user);
    deps.accounts.user.update = async (...args) => (await deps.accounts.user.remove(user.id), update(...args));
    await expect(replaceAvatar(deps, user.id, { buffer: PNG })).rejects.toEqual(AuthErrors.userNotFound());
    expect(deps.avatars.files.size).toBe(0);
  });

  it('is removed with its image; removing or reading one that is not there answers 404', async () => {
    const { deps, user } = await setUp();
    await expect(removeAvatar(deps, user.id)).rejects.toEqual(AuthErrors.noAvatarStored());
    await expect(readAvatar(deps, user.id)).rejects.toEqual(AuthErrors.noAvatarStored());
    await replaceAvatar(deps, user.id, { buffer: PNG });
    expect(await removeAvatar(deps, user.id)).not.toHaveProperty('avatar');
    expect(deps.avatars.files.size).toBe(0);
    await expect(readAvatar(deps, user.id)).rejects.toEqual(AuthErrors.noAvatarStored());
    await expect(replaceAvatar(deps, 'ffffffffffffffffffffffff', { buffer: PNG })).rejects.toEqual(AuthErrors.userNotFound());
  });
});
