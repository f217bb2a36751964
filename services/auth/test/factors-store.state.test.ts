// The factor store's contract, held to both of its implementations: MongoDB (against the resolved
// server) and the in-memory one the domain tests use. Whatever the method, the store keeps a list:
// a factor held once per account or once in the service, an enrolment restarted but never a live
// factor replaced, a counter moved on once, single-use codes spent once, suspension lifted by a use.
import { randomBytes } from 'node:crypto';
import mongoose, { type Connection } from 'mongoose';
import type { Factors } from '../src/domain/ports';
import { MongoFactors } from '../src/data-access/mongo-factors';
import { SecretBox } from '../src/security/secret-box';
import { isolatedNames, testUrls } from '@acct/test-harness/isolation';
import { APP, CODES, MemoryFactors } from './fakes';

let connection: Connection;
beforeAll(async () => {
  connection = await mongoose.createConnection(testUrls().mongo, { dbName: isolatedNames('factors').mongoDb }).asPromise();
});
afterAll(async () => {
  await connection.dropDatabase();
  await connection.close();
});

let mongo: MongoFactors | undefined;
const stores: Array<[string, () => Promise<Factors>]> = [
  [
    'MongoFactors',
    async () => {
      if (!mongo) {
        mongo = new MongoFactors(connection, new SecretBox(randomBytes(32)));
        await mongo.init();
      }
      return mongo;
    },
  ],
  ['MemoryFactors', async () => new MemoryFactors()],
];

const passkey = (id: string) => ({ id, method: 'passkey' as const, name: `Key ${id}`, confirmed: true, counter: 0, details: { publicKey: 'pk', transports: ['internal'] } });
let n = 0;
/** An account no other test touches. */
const fresh = () => `account-${++n}-${randomBytes(4).toString('hex')}`;

describe.each(stores)('%s', (_name, open) => {
  it('restarts an enrolment never confirmed, and never replaces a live factor', async () => {
    const factors = await open();
    const id = fresh();
    expect(await factors.add('user', id, { ...APP, confirmed: false, secret: 'FIRST' }, 'unconfirmed')).toBe('added');
    expect(await factors.add('user', id, { ...APP, confirmed: false, secret: 'SECOND' }, 'unconfirmed')).toBe('added');
    expect(await factors.list('user', id)).toEqual([expect.objectContaining({ id: 'totp', method: 'totp', confirmed: false, secret: 'SECOND', counter: -1 })]);
    expect(await factors.confirm('user', id, APP, 7)).toBe(true);
    expect(await factors.confirm('user', id, APP, 8)).toBe(false);
    expect(await factors.add('user', id, { ...APP, confirmed: false, secret: 'THIRD' }, 'unconfirmed')).toBe('exists');
    expect(await factors.list('user', id)).toEqual([expect.objectContaining({ confirmed: true, secret: 'SECOND', counter: 7 })]);
    // The other kind's account of the same id is another account.
    expect(await factors.list('admin', id)).toEqual([]);
  });

  it('moves a counter on strictly once per value, or to any value when the caller checked it', async () => {
    const factors = await open();
    const id = fresh();
    await factors.add('user', id, { ...APP, confirmed: false, secret: 'S' }, 'unconfirmed');
    expect(await factors.use('user', id, APP, 5, { strictly: true })).toBe(false); // not live yet
    await factors.confirm('user', id, APP, 5);
    expect(await factors.use('user', id, APP, 5, { strictly: true })).toBe(false);
    expect(await factors.use('user', id, APP, 4, { strictly: true })).toBe(false);
    expect(await factors.use('user', id, APP, 6, { strictly: true })).toBe(true);
    const [app] = await factors.list('user', id);
    expect(app).toMatchObject({ counter: 6 });
    expect(app.lastUsedAt).toBeInstanceOf(Date);
    await factors.add('user', id, passkey(`pk-${id}`));
    expect(await factors.use('user', id, { method: 'passkey', id: `pk-${id}` }, 0)).toBe(true);
    expect(await factors.use('user', fresh(), { method: 'passkey', id: `pk-${id}` }, 1)).toBe(false);
  });

  it('spends each code once, tells a spent one from a stranger, and a new set ends the old', async () => {
    const factors = await open();
    const id = fresh();
    await factors.add('user', id, { ...CODES, confirmed: true, codes: ['aaaaaaaaaa', 'bbbbbbbbbb'] }, 'any');
    expect(await factors.spend('user', id, CODES, 'aaaaaaaaaa')).toBe(1);
    expect(await factors.spend('user', id, CODES, 'aaaaaaaaaa')).toBe('used');
    expect(await factors.spend('user', id, CODES, 'cccccccccc')).toBeUndefined();
    expect(await factors.spend('user', fresh(), CODES, 'bbbbbbbbbb')).toBeUndefined();
    expect(await factors.list('user', id)).toEqual([expect.objectContaining({ id: 'recovery_code', codesLeft: 1 })]);
    await factors.add('user', id, { ...CODES, confirmed: true, codes: ['dddddddddd'] }, 'any');
    expect(await factors.spend('user', id, CODES, 'bbbbbbbbbb')).toBeUndefined();
    expect(await factors.spend('user', id, CODES, 'aaaaaaaaaa')).toBeUndefined();
    expect(await factors.spend('user', id, CODES, 'dddddddddd')).toBe(0);
  });

  it('holds a factor of a service-wide id once in the whole service, found and removed only by its owner', async () => {
    const factors = await open();
    const [owner, other] = [fresh(), fresh()];
    const key = { method: 'passkey' as const, id: `shared-${owner}` };
    expect(await factors.add('user', owner, passkey(key.id))).toBe('added');
    expect(await factors.add('user', other, passkey(key.id))).toBe('exists');
    expect(await factors.find('passkey', key.id)).toMatchObject({ id: key.id, kind: 'user', accountId: owner, name: `Key ${key.id}`, details: { publicKey: 'pk', transports: ['internal'] } });
    expect(await factors.remove('user', other, key)).toBe(false);
    expect(await factors.remove('user', owner, key)).toBe(true);
    expect(await factors.find('passkey', key.id)).toBeNull();
  });

  it('suspends the account’s factors of the methods named, once, and a use that keeps one lifts it', async () => {
    const factors = await open();
    const [victim, bystander] = [fresh(), fresh()];
    await factors.add('user', victim, passkey(`${victim}-1`));
    await factors.add('user', victim, passkey(`${victim}-2`));
    await factors.add('user', victim, { ...CODES, confirmed: true, codes: ['aaaaaaaaaa'] }, 'any');
    await factors.add('user', bystander, passkey(`${bystander}-1`));

    expect((await factors.suspend('user', victim, ['passkey'])).map((p) => p.id).sort()).toEqual([`${victim}-1`, `${victim}-2`]);
    expect(await factors.suspend('user', victim, ['passkey'])).toEqual([]);
    expect((await factors.list('user', victim)).map((f) => [f.id, f.suspended ?? false])).toEqual([
      [`${victim}-1`, true],
      [`${victim}-2`, true],
      ['recovery_code', false],
    ]);
    expect((await factors.find('passkey', `${bystander}-1`))?.suspended).toBeUndefined();

    await factors.use('user', victim, { method: 'passkey', id: `${victim}-1` }, 5);
    expect(await factors.find('passkey', `${victim}-1`)).toMatchObject({ counter: 5, suspended: true });
    await factors.use('user', victim, { method: 'passkey', id: `${victim}-1` }, 6, { keep: true });
    expect((await factors.find('passkey', `${victim}-1`))?.suspended).toBeUndefined();
    expect((await factors.find('passkey', `${victim}-2`))?.suspended).toBe(true);
  });

  it('removes every factor of one account and answers them', async () => {
    const factors = await open();
    const [id, other] = [fresh(), fresh()];
    await factors.add('user', id, { ...APP, confirmed: false, secret: 'S' }, 'unconfirmed');
    await factors.add('user', id, passkey(`${id}-1`));
    await factors.add('user', other, passkey(`${other}-1`));
    expect((await factors.removeAll('user', id)).map((f) => f.method).sort()).toEqual(['passkey', 'totp']);
    expect(await factors.list('user', id)).toEqual([]);
    expect(await factors.list('user', other)).toHaveLength(1);
  });
});

describe('MongoFactors at rest', () => {
  it('keeps secrets sealed and codes hashed, and reads the documents written before it knew no method', async () => {
    const factors = mongo ?? new MongoFactors(connection, new SecretBox(randomBytes(32)));
    const id = fresh();
    await factors.add('user', id, { ...APP, confirmed: false, secret: 'PLAINSEED' }, 'unconfirmed');
    await factors.add('user', id, { ...CODES, confirmed: true, codes: ['aaaaaaaaaa'] }, 'any');
    const raw = JSON.stringify(await connection.collection('factors').find({ accountId: id }).toArray());
    expect(raw).not.toContain('PLAINSEED');
    expect(raw).not.toContain('aaaaaaaaaa');

    // As the store before this one wrote them: an authenticator's `lastStep`, a set of codes of type `recovery`, a passkey's own fields.
    const old = fresh();
    await connection.collection('factors').insertMany([
      { slot: `recovery:user:${old}`, type: 'recovery', kind: 'user', accountId: old, codes: [], usedCodes: [], transports: [], createdAt: new Date('2026-01-01') },
      { slot: `passkey:old-${old}`, type: 'passkey', kind: 'user', accountId: old, credentialId: `old-${old}`, name: 'Old', publicKey: 'opk', counter: 3, transports: ['usb'], codes: [], usedCodes: [], lastUsedAt: null, createdAt: new Date('2026-01-02') },
    ]);
    expect(await factors.list('user', old)).toEqual([
      expect.objectContaining({ id: 'recovery_code', method: 'recovery_code', confirmed: true, codesLeft: 0, counter: -1 }),
      expect.objectContaining({ id: `old-${old}`, method: 'passkey', confirmed: true, counter: 3, details: { publicKey: 'opk', transports: ['usb'] } }),
    ]);
    expect(await factors.use('user', old, { method: 'passkey', id: `old-${old}` }, 4)).toBe(true);
    expect(await factors.remove('user', old, CODES)).toBe(true);
  });
});
