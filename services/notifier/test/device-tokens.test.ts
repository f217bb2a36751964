// Device token lookups: a burst of login events shares queries, and each gets its own user's tokens.
import mongoose, { type Connection } from 'mongoose';
import type { CommandStartedEvent } from 'mongodb';
import { DeviceTokenRepository } from '../src/data-access/device-token-repository';
import { isolatedNames, testUrls } from '@acct/test-harness/isolation';

let connection: Connection;
let repo: DeviceTokenRepository;
const finds: CommandStartedEvent[] = [];

beforeAll(async () => {
  connection = await mongoose.createConnection(testUrls().mongo, { dbName: isolatedNames('devtokens').mongoDb, monitorCommands: true }).asPromise();
  connection.getClient().on('commandStarted', (event) => {
    if (event.commandName === 'find') finds.push(event);
  });
  repo = new DeviceTokenRepository(connection);
  await repo.init();
  await repo.register('u1', 'laptop', 'linux', 'tok-u1-a');
  await repo.register('u1', 'phone', 'android', 'tok-u1-b');
  await repo.register('u2', 'desk', 'win32', 'tok-u2');
});
afterAll(async () => {
  await connection.dropDatabase();
  await connection.close();
});

describe('DeviceTokenRepository.tokensOf', () => {
  it('answers each lookup of a burst with its own user’s tokens, in a few shared queries', async () => {
    finds.length = 0;
    const users = Array.from({ length: 30 }, (_, i) => ['u1', 'u2', 'nobody'][i % 3]);
    const answers = await Promise.all(users.map((u) => repo.tokensOf(u)));
    const expected: Record<string, string[]> = { u1: ['tok-u1-a', 'tok-u1-b'], u2: ['tok-u2'], nobody: [] };
    answers.forEach((tokens, i) => expect([users[i], [...tokens].sort()]).toEqual([users[i], expected[users[i]]]));
    // The first lookup goes out alone; the 29 that arrive while it is under way share the next.
    expect(finds.length).toBe(2);
  });

  it('reads fresh state: a device registered after a lookup is in the next one', async () => {
    expect(await repo.tokensOf('u3')).toEqual([]);
    await repo.register('u3', 'new', 'darwin', 'tok-u3');
    expect(await repo.tokensOf('u3')).toEqual(['tok-u3']);
  });

  it('fails every lookup of a batch whose query fails, and recovers for the next', async () => {
    const collection = connection.collection('device_tokens');
    const original = collection.find.bind(collection) as (...args: unknown[]) => unknown;
    let calls = 0;
    const find = jest.spyOn(collection, 'find').mockImplementation(((...args: unknown[]) => {
      if (++calls === 2) throw new Error('store down');
      return original(...args);
    }) as never);
    // The first goes out alone; the other two share the second query, which fails.
    const results = await Promise.allSettled([repo.tokensOf('u1'), repo.tokensOf('u2'), repo.tokensOf('nobody')]);
    find.mockRestore();
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'rejected']);
    expect(await repo.tokensOf('u2')).toEqual(['tok-u2']);
  });
});
