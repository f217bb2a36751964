// Passkeys' suspension against the resolved MongoDB (shared/mailbox.ts's first proof of an address):
// every passkey of the one account is suspended, once, and using one as a second step lifts it.
import { randomBytes } from 'node:crypto';
import mongoose, { type Connection } from 'mongoose';
import { MongoFactors } from '../src/data-access/mongo-factors';
import { SecretBox } from '../src/security/secret-box';
import { isolatedNames, testUrls } from '@acct/test-harness/isolation';

let connection: Connection;
let factors: MongoFactors;
beforeAll(async () => {
  connection = await mongoose.createConnection(testUrls().mongo, { dbName: isolatedNames('factors').mongoDb }).asPromise();
  factors = new MongoFactors(connection, new SecretBox(randomBytes(32)));
  await factors.init();
});
afterAll(async () => {
  await connection.dropDatabase();
  await connection.close();
});

const passkey = (id: string) => ({ id, name: `Key ${id}`, publicKey: 'pk', counter: 0, transports: ['internal'] });

describe('MongoFactors passkey suspension', () => {
  it('suspends every passkey of the account and no other account’s, once, and a kept one signs in again', async () => {
    await factors.addPasskey('user', 'victim', passkey('v1'));
    await factors.addPasskey('user', 'victim', passkey('v2'));
    await factors.addPasskey('user', 'bystander', passkey('b1'));

    expect((await factors.suspendPasskeys('user', 'victim')).map((p) => p.id).sort()).toEqual(['v1', 'v2']);
    expect(await factors.suspendPasskeys('user', 'victim')).toEqual([]);
    expect((await factors.of('user', 'victim')).passkeys.map((p) => [p.id, p.suspended])).toEqual([
      ['v1', true],
      ['v2', true],
    ]);
    expect((await factors.findPasskey('b1'))?.suspended).toBeUndefined();

    await factors.usePasskey('v1', 5);
    expect(await factors.findPasskey('v1')).toMatchObject({ counter: 5, suspended: true });
    await factors.usePasskey('v1', 6, { keep: true });
    expect((await factors.findPasskey('v1'))?.suspended).toBeUndefined();
    expect((await factors.findPasskey('v2'))?.suspended).toBe(true);
  });
});
