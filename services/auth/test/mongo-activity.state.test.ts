// The activity history against the resolved MongoDB: what its owner or an intruder writes about
// looks (a name, a picture) never pushes a security entry out, however often, and repeats collapse;
// trimming is per account. The domain decides which entries are cosmetic (shared/activity.ts).
import mongoose, { type Connection } from 'mongoose';
import { MongoActivityLog } from '../src/data-access/mongo-activity';
import { isolatedNames, testUrls } from '@acct/test-harness/isolation';

let connection: Connection;
let log: MongoActivityLog;
const MAX = 5;
beforeAll(async () => {
  connection = await mongoose.createConnection(testUrls().mongo, { dbName: isolatedNames('activity').mongoDb }).asPromise();
  log = new MongoActivityLog(connection, { retentionDays: 30, maxPerAccount: MAX });
  await log.init();
});
afterAll(async () => {
  await connection.dropDatabase();
  await connection.close();
});

let n = 0;
const account = () => `acct-${++n}`;
const types = async (accountId: string) => (await log.list({ kind: 'user', accountId, limit: 100 })).map((e) => e.type);

describe('MongoActivityLog trimming', () => {
  it('keeps a sign-in however many name changes follow it, and collapses them into one counted entry', async () => {
    const id = account();
    await log.record({ kind: 'user', accountId: id, type: 'signed_in', ip: '198.51.100.7', details: ['method: password'] });
    for (let i = 0; i < 40; i++) await log.record({ kind: 'user', accountId: id, type: 'profile_updated', details: ['name'], cosmetic: true });
    const entries = await log.list({ kind: 'user', accountId: id, limit: 100 });
    expect(entries.map((e) => [e.type, e.repeated])).toEqual([
      ['profile_updated', 40],
      ['signed_in', undefined],
    ]);
    expect(entries[0].firstAt!.getTime()).toBeLessThanOrEqual(entries[0].at.getTime());
    expect(entries[0]).not.toHaveProperty('cosmetic');
  });

  it('trims cosmetic entries only by cosmetic ones, and security entries only by security ones', async () => {
    const id = account();
    await log.record({ kind: 'user', accountId: id, type: 'signed_in' });
    // Kinds of cosmetic change that do not collapse into each other (another actor each).
    for (let i = 0; i < MAX + 3; i++) await log.record({ kind: 'user', accountId: id, type: 'avatar_replaced', actor: { kind: 'admin', id: `a${i}` }, cosmetic: true });
    expect((await types(id)).filter((t) => t === 'signed_in')).toHaveLength(1);
    expect((await types(id)).filter((t) => t === 'avatar_replaced')).toHaveLength(MAX);
    for (let i = 0; i < MAX + 2; i++) await log.record({ kind: 'user', accountId: id, type: 'sign_in_failed' });
    const after = await types(id);
    expect(after.filter((t) => t !== 'avatar_replaced')).toEqual(Array(MAX).fill('sign_in_failed'));
    expect(after.filter((t) => t === 'avatar_replaced')).toHaveLength(MAX);
  });

  it('trims one account without touching another’s entries', async () => {
    const quiet = account();
    const busy = account();
    await log.record({ kind: 'user', accountId: quiet, type: 'signed_in' });
    await log.record({ kind: 'user', accountId: quiet, type: 'avatar_removed', cosmetic: true });
    for (let i = 0; i < MAX + 4; i++) await log.record({ kind: 'user', accountId: busy, type: 'sign_in_failed' });
    for (let i = 0; i < MAX + 4; i++) await log.record({ kind: 'user', accountId: busy, type: 'avatar_replaced', actor: { kind: 'admin', id: `b${i}` }, cosmetic: true });
    expect(await types(quiet)).toEqual(['avatar_removed', 'signed_in']);
    expect(await types(busy)).toHaveLength(2 * MAX);
  });
});
