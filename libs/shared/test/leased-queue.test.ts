// The leased queue under the outbox and the reset-request queue: one claimant per entry however many
// ask at once, a crashed claimant's entry comes back when its lease runs out, a failure backs off.
import mongoose, { type Connection } from 'mongoose';
import { LeasedQueue, backOffMs, modelOn } from '@acct/shared/mongo';
import { isolatedNames, testUrls } from '@acct/test-harness/isolation';

interface Job {
  _id: string;
  leaseUntil: Date;
  attempts: number;
  done: boolean;
}
const jobSchema = new mongoose.Schema<Job>({ _id: String, leaseUntil: Date, attempts: Number, done: Boolean }, { versionKey: false });

let connection: Connection;
beforeAll(async () => {
  connection = await mongoose.createConnection(testUrls().mongo, { dbName: isolatedNames('leased').mongoDb }).asPromise();
});
afterAll(async () => {
  await connection.dropDatabase();
  await connection.close();
});

describe('LeasedQueue', () => {
  it('when ten workers claim five due entries at once, then each entry goes to exactly one of them', async () => {
    const model = modelOn<Job>(connection, 'JobA', jobSchema, 'jobs_a');
    const now = new Date();
    await model.insertMany(Array.from({ length: 5 }, (_, i) => ({ _id: `j${i}`, leaseUntil: now, attempts: 0, done: false })));
    const queue = new LeasedQueue(model, { leaseMs: 60_000 });

    const claimed = await Promise.all(Array.from({ length: 10 }, () => queue.claim()));

    const ids = claimed.filter((c) => c !== undefined).map((c) => c!._id);
    expect(ids.sort()).toEqual(['j0', 'j1', 'j2', 'j3', 'j4']);
    expect(claimed.every((c) => c === undefined || c.attempts === 1)).toBe(true);
  });

  it('when a lease runs out, then the entry is claimed again with one more attempt; entries not `due` never are', async () => {
    const model = modelOn<Job>(connection, 'JobB', jobSchema, 'jobs_b');
    const start = new Date();
    await model.insertMany([
      { _id: 'open', leaseUntil: start, attempts: 0, done: false },
      { _id: 'closed', leaseUntil: start, attempts: 0, done: true },
    ]);
    const queue = new LeasedQueue(model, { leaseMs: 1_000, due: { done: false } });

    expect((await queue.claim(start))?._id).toBe('open');
    expect(await queue.claim(new Date(start.getTime() + 999))).toBeUndefined();
    const again = await queue.claim(new Date(start.getTime() + 1_000));
    expect([again?._id, again?.attempts]).toEqual(['open', 2]);
  });

  it('when an entry backs off, then no worker claims it before its back-off, and it records what it is told', async () => {
    const model = modelOn<Job>(connection, 'JobC', jobSchema, 'jobs_c');
    await model.create({ _id: 'flaky', leaseUntil: new Date(), attempts: 0, done: false });
    const queue = new LeasedQueue(model, { leaseMs: 10 });
    const entry = (await queue.claim())!;

    await queue.backOff(entry._id, entry.attempts, { done: false });

    const stored = await model.findById('flaky').lean<Job>().exec();
    expect(stored!.leaseUntil.getTime()).toBeGreaterThanOrEqual(Date.now() + backOffMs(1) - 1_000);
    expect(await queue.claim()).toBeUndefined();
    await queue.remove('flaky');
    expect(await model.countDocuments().exec()).toBe(0);
  });

  it('backs off 2 s, 4 s, … and never more than a minute', () => {
    expect([1, 2, 3, 6, 7, 50].map(backOffMs)).toEqual([2_000, 4_000, 8_000, 60_000, 60_000, 60_000]);
  });
});
