// The first admin's claim against the resolved MongoDB: granted once while no admin exists, to one
// of many asking at once, given back by its release, and never while an admin exists. What the
// domain does with it (register.ts) is test/domain/admin-console.test.ts's.
import mongoose, { type Connection } from 'mongoose';
import { MongoFirstAdminClaim } from '../src/data-access/mongo-first-admin-claim';
import { isolatedNames, testUrls } from '@acct/test-harness/isolation';

let connection: Connection;
let claims: MongoFirstAdminClaim;
beforeAll(async () => {
  connection = await mongoose.createConnection(testUrls().mongo, { dbName: isolatedNames('firstadmin').mongoDb }).asPromise();
});
afterAll(async () => {
  await connection.dropDatabase();
  await connection.close();
});
beforeEach(async () => {
  await connection.collection('admins').deleteMany({});
  await connection.collection('settings').deleteMany({});
  // A replica's own: it keeps "an admin exists" once it has seen one.
  claims = new MongoFirstAdminClaim(connection);
});

describe('MongoFirstAdminClaim', () => {
  it('grants one of ten claims made at once while no admin exists', async () => {
    const granted = (await Promise.all(Array.from({ length: 10 }, () => claims.claim()))).filter(Boolean);
    expect(granted).toHaveLength(1);
  });

  it('is granted again once released (the first registration failed)', async () => {
    const release = await claims.claim();
    expect(release).toBeInstanceOf(Function);
    expect(await claims.claim()).toBeUndefined();
    await release!();
    expect(await claims.claim()).toBeInstanceOf(Function);
  });

  it('is never granted while an admin exists, marker or not', async () => {
    await connection.collection('admins').insertOne({ email: 'ada@example.com', role: 'admin' });
    expect(await claims.claim()).toBeUndefined();
    expect(await claims.available()).toBe(false);
  });

  it('keeps "not available" once it has seen an admin, which never goes (a sign-in page asks on every view)', async () => {
    expect(await claims.available()).toBe(true);
    await connection.collection('admins').insertOne({ email: 'ada@example.com', role: 'admin' });
    expect(await claims.available()).toBe(false);
    await connection.collection('admins').deleteMany({});
    expect(await claims.available()).toBe(false);
    // A replica that never saw one reads the store.
    expect(await new MongoFirstAdminClaim(connection).available()).toBe(true);
  });

  it('says it is available until it is claimed, and again once released', async () => {
    expect(await claims.available()).toBe(true);
    const release = await claims.claim();
    expect(await claims.available()).toBe(false);
    await release!();
    expect(await claims.available()).toBe(true);
  });
});
