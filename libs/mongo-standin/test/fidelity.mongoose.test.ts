// Fidelity suite, mongoose side: the model operations the services use, against whatever the harness resolved.
import mongoose, { type Connection } from 'mongoose';
import { isolatedNames, testUrls } from '@acct/test-harness/isolation';

let connection: Connection;

const accountSchema = new mongoose.Schema(
  {
    email: { type: String, required: true, unique: true, lowercase: true, trim: true },
    name: String,
    logins: { type: Number, default: 0 },
    tags: [String],
  },
  { timestamps: true },
);

const makeModel = (c: Connection) => c.model('Account', accountSchema);
let Account: ReturnType<typeof makeModel>;

beforeAll(async () => {
  connection = await mongoose.createConnection(testUrls().mongo, { dbName: isolatedNames('mongoose').mongoDb }).asPromise();
  Account = makeModel(connection);
});
afterAll(async () => {
  await connection.dropDatabase();
  await connection.close();
});

describe('mongoose on the resolved MongoDB', () => {
  // Each test starts from an empty collection with its unique index, whatever ran before it.
  beforeEach(async () => {
    await Account.deleteMany({});
    await Account.syncIndexes();
  });

  it('syncs indexes, creates, finds by id and by unique email', async () => {
    await Account.syncIndexes();
    const created = await Account.create({ email: ' Ann@Example.COM ', name: 'Ann' });
    expect((await Account.findById(created._id).lean())?.email).toBe('ann@example.com');
    expect((await Account.findOne({ email: 'ann@example.com' }).lean())?.name).toBe('Ann');
    expect((await Account.findOne({ email: 'ann@example.com' }).lean())?.createdAt).toBeInstanceOf(Date);
  });

  it('answers a duplicate email with code 11000', async () => {
    await Account.create({ email: 'dup@example.com' });
    await expect(Account.create({ email: 'DUP@example.com' })).rejects.toMatchObject({ code: 11000, keyValue: { email: 'dup@example.com' } });
  });

  it('inserts many, sorts, limits and counts', async () => {
    await Account.insertMany([1, 2, 3].map((n) => ({ email: `m${n}@example.com`, logins: n })));
    const top = await Account.find({ email: /^m\d@/ }).sort({ logins: -1 }).limit(2).lean();
    expect(top.map((a) => a.logins)).toEqual([3, 2]);
    expect(await Account.countDocuments({ logins: { $gte: 2 } })).toBe(2);
  });

  it('updates, upserts with findOneAndUpdate, and deletes', async () => {
    await Account.create({ email: 'm1@example.com', logins: 1 });
    await Account.updateOne({ email: 'm1@example.com' }, { $inc: { logins: 10 }, $push: { tags: 'vip' } });
    expect((await Account.findOne({ email: 'm1@example.com' }).lean())).toMatchObject({ logins: 11, tags: ['vip'] });
    const upserted = await Account.findOneAndUpdate({ email: 'new@example.com' }, { $set: { name: 'New' } }, { upsert: true, new: true }).lean();
    expect(upserted).toMatchObject({ email: 'new@example.com', name: 'New' });
    await Account.deleteOne({ email: 'new@example.com' });
    expect(await Account.exists({ email: 'new@example.com' })).toBeNull();
  });
});
