// Reset tokens against the resolved MongoDB, with the clock passed in: a token is refused from the
// moment it expires, whether or not the TTL sweep has removed it yet.
import mongoose, { type Connection } from 'mongoose';
import { MongoResetTokens } from '../src/data-access/mongo-reset-tokens';
import { isolatedNames, testUrls } from '@acct/test-harness/isolation';

let connection: Connection;
let tokens: MongoResetTokens;
beforeAll(async () => {
  connection = await mongoose.createConnection(testUrls().mongo, { dbName: isolatedNames('resettokens').mongoDb }).asPromise();
  tokens = new MongoResetTokens(connection);
  await tokens.init();
});
afterAll(async () => {
  await connection.dropDatabase();
  await connection.close();
});

describe('MongoResetTokens expiry', () => {
  const expiresAt = new Date(Date.now() + 3_600_000);
  const justBefore = new Date(expiresAt.getTime() - 1);

  it('when the clock is past the expiry, then neither find nor consume takes the token; just before, both do', async () => {
    await tokens.store('tok-expiring', 'user', 'acct-1', expiresAt, 4);

    expect(await tokens.find('tok-expiring', 'user', expiresAt)).toBeUndefined();
    expect(await tokens.consume('tok-expiring', 'user', new Date(expiresAt.getTime() + 1))).toBeUndefined();
    expect(await tokens.find('tok-expiring', 'user', justBefore)).toBe('acct-1');
    expect(await tokens.consume('tok-expiring', 'user', justBefore)).toEqual({ accountId: 'acct-1', credentialEpoch: 4 });
    expect(await tokens.consume('tok-expiring', 'user', justBefore)).toBeUndefined();
  });

  it('when the kind differs, then the token is not found', async () => {
    await tokens.store('tok-kind', 'admin', 'acct-2', expiresAt, 0);
    expect(await tokens.find('tok-kind', 'user', justBefore)).toBeUndefined();
    expect(await tokens.find('tok-kind', 'admin', justBefore)).toBe('acct-2');
  });
});
