// Fidelity suite: written against the plain MongoDB driver, it runs against whatever the harness
// resolved (the stand-in here; a real server when MONGO_URL is set or a Docker engine answers).
import { Binary, Decimal128, GridFSBucket, Long, MongoClient, MongoServerError, ObjectId, type Db } from 'mongodb';
import { isolatedNames, testUrls } from '@acct/test-harness/isolation';

let client: MongoClient;
let db: Db;

beforeAll(async () => {
  client = await new MongoClient(testUrls().mongo, { serverSelectionTimeoutMS: 5_000 }).connect();
  db = client.db(isolatedNames('fidelity').mongoDb);
});
afterAll(async () => {
  await db.dropDatabase();
  await client.close();
});

const codeOf = async (work: Promise<unknown>) => {
  try {
    await work;
    return 'no error';
  } catch (err) {
    return (err as MongoServerError).code;
  }
};

describe('find', () => {
  const docs = Array.from({ length: 250 }, (_, i) => ({ n: i, group: i % 3, tag: `t${i % 5}` }));
  beforeAll(async () => {
    await db.collection('numbers').insertMany(docs);
  });

  it('filters, sorts, skips and limits', async () => {
    const found = await db.collection('numbers').find({ group: 1 }).sort({ n: -1 }).skip(2).limit(3).toArray();
    expect(found.map((d) => d.n)).toEqual([241, 238, 235]);
  });

  it('orders by _id either way, with a filter, skip, limit and projection (ids made out of order)', async () => {
    // Ids whose order is not the insertion order, each from a timestamp of its own.
    const ids = [5, 1, 4, 2, 3].map((t) => ObjectId.createFromTime(1_700_000_000 + t));
    await db.collection('ordered').insertMany(ids.map((_id, i) => ({ _id, i, keep: i !== 2 })));
    const up = await db.collection('ordered').find({ keep: true }, { projection: { i: 1 } }).sort({ _id: 1 }).toArray();
    expect(up.map((d) => d._id.getTimestamp().getTime() / 1000 - 1_700_000_000)).toEqual([1, 2, 3, 5]);
    expect(Object.keys(up[0]).sort()).toEqual(['_id', 'i']);
    const down = await db.collection('ordered').find({}).sort({ _id: -1 }).skip(1).limit(2).toArray();
    expect(down.map((d) => d._id.getTimestamp().getTime() / 1000 - 1_700_000_000)).toEqual([4, 3]);
    const after = await db.collection('ordered').find({ _id: { $gt: ids[3] } }).sort({ _id: 1 }).limit(2).toArray();
    expect(after.map((d) => d.i)).toEqual([4, 2]);
  });

  it("matches a field's equality as MongoDB does: in an array (one level deep), never when missing, NaN to NaN, with other conditions", async () => {
    const values = db.collection<{ _id: string; v?: unknown; status: string; at: number }>('equalities');
    await values.insertMany([
      { _id: 'string', v: 'a', status: 'pending', at: 1 },
      { _id: 'array', v: ['b', 'a'], status: 'pending', at: 2 },
      { _id: 'nested', v: [['a']], status: 'pending', at: 3 },
      { _id: 'missing', status: 'done', at: 4 },
      { _id: 'null', v: null, status: 'pending', at: 5 },
      { _id: 'long', v: Long.fromNumber(7), status: 'pending', at: 6 },
      { _id: 'nan', v: Number.NaN, status: 'pending', at: 7 },
      { _id: 'true', v: true, status: 'done', at: 8 },
      { _id: 'one', v: '1', status: 'pending', at: 9 },
    ]);
    const ids = async (filter: object) => (await values.find(filter).sort({ at: 1 }).toArray()).map((d) => d._id);
    expect(await ids({ v: 'a' })).toEqual(['string', 'array']);
    expect(await ids({ v: 'a', status: 'pending' })).toEqual(['string', 'array']);
    expect(await ids({ v: Number.NaN })).toEqual(['nan']);
    expect(await ids({ v: true, status: 'done' })).toEqual(['true']);
    expect(await ids({ v: 1 })).toEqual([]);
    expect(await ids({ status: 'pending', at: { $gte: 5 } })).toEqual(['null', 'long', 'nan', 'one']);
    expect(await ids({ status: 'gone', at: { $gte: 0 } })).toEqual([]);
    expect(await values.findOneAndUpdate({ status: 'done', at: { $lte: 4 } }, { $set: { status: 'taken' } })).toMatchObject({ _id: 'missing' });
  });

  it('pages through every document with getMore when the batch is smaller than the result', async () => {
    const all = await db.collection('numbers').find({}, { batchSize: 40 }).toArray();
    expect(all).toHaveLength(250);
    expect(new Set(all.map((d) => d.n)).size).toBe(250);
  });

  it('kills an open cursor, after which getMore answers CursorNotFound (43)', async () => {
    const opened = await db.command({ find: 'numbers', filter: {}, batchSize: 10 });
    const id = opened.cursor.id as Long;
    expect(opened.cursor.firstBatch).toHaveLength(10);
    expect(String(id)).not.toBe('0');
    const killed = await db.command({ killCursors: 'numbers', cursors: [id] });
    expect(killed.cursorsKilled.map(String)).toEqual([String(id)]);
    expect(await codeOf(db.command({ getMore: id, collection: 'numbers' }))).toBe(43);
  });

  it('answers one batch for a negative limit', async () => {
    const found = await db.collection('numbers').find({}).limit(-5).toArray();
    expect(found).toHaveLength(5);
  });

  it('applies inclusion and exclusion projections', async () => {
    const [inclusion] = await db.collection('numbers').find({ n: 7 }).project({ tag: 1 }).toArray();
    expect(Object.keys(inclusion).sort()).toEqual(['_id', 'tag']);
    const [exclusion] = await db.collection('numbers').find({ n: 7 }).project({ tag: 0, _id: 0 }).toArray();
    expect(exclusion).toEqual({ n: 7, group: 1 });
  });

  it('counts and lists distinct values', async () => {
    expect(await db.collection('numbers').countDocuments({ group: 0 })).toBe(84);
    expect(await db.command({ count: 'numbers', query: { tag: 't1' } })).toMatchObject({ n: 50 });
    expect((await db.collection('numbers').distinct('tag')).sort()).toEqual(['t0', 't1', 't2', 't3', 't4']);
  });

  it('aggregates with $match, $group, $sort, $skip, $limit, $project and $count', async () => {
    const grouped = await db
      .collection('numbers')
      .aggregate([
        { $match: { n: { $lt: 30 } } },
        { $group: { _id: '$group', total: { $sum: '$n' } } },
        { $sort: { _id: 1 } },
        { $skip: 1 },
        { $limit: 1 },
        { $project: { _id: 0, group: '$_id', total: 1 } },
      ])
      .toArray();
    expect(grouped).toEqual([{ total: 145, group: 1 }]);
    const [counted] = await db.collection('numbers').aggregate([{ $match: { tag: 't0' } }, { $count: 'c' }]).toArray();
    expect(counted).toEqual({ c: 50 });
  });
});

describe('writes', () => {
  it('updates many and reports matched and modified counts', async () => {
    const c = db.collection('writes');
    await c.insertMany([{ k: 'a', v: 1 }, { k: 'a', v: 1 }, { k: 'b', v: 1 }]);
    const result = await c.updateMany({ k: 'a' }, { $set: { v: 2 } });
    expect([result.matchedCount, result.modifiedCount]).toEqual([2, 2]);
    const again = await c.updateMany({ k: 'a' }, { $set: { v: 2 } });
    expect([again.matchedCount, again.modifiedCount]).toEqual([2, 0]);
  });

  it('upserts from the filter, reports upsertedId, and ignores $setOnInsert on a match', async () => {
    const c = db.collection('upserts');
    const first = await c.updateOne({ email: 'u@x.io' }, { $set: { seen: 1 }, $setOnInsert: { created: 'first' } }, { upsert: true });
    expect(first.upsertedCount).toBe(1);
    expect(first.upsertedId).toBeInstanceOf(ObjectId);
    const second = await c.updateOne({ email: 'u@x.io' }, { $set: { seen: 2 }, $setOnInsert: { created: 'second' } }, { upsert: true });
    expect([second.upsertedCount, second.matchedCount]).toEqual([0, 1]);
    expect(await c.findOne({ email: 'u@x.io' }, { projection: { _id: 0 } })).toEqual({ email: 'u@x.io', seen: 2, created: 'first' });
  });

  it('applies 50 parallel $inc exactly', async () => {
    const c = db.collection('counters');
    const { insertedId } = await c.insertOne({ n: 0 });
    await Promise.all(Array.from({ length: 50 }, () => c.updateOne({ _id: insertedId }, { $inc: { n: 1 } })));
    expect((await c.findOne({ _id: insertedId }))?.n).toBe(50);
  });

  it('finds and modifies: new, upsert, sort, projection and remove', async () => {
    const c = db.collection('fam');
    await c.insertMany([{ q: 1, rank: 2 }, { q: 1, rank: 9 }]);
    const updated = await c.findOneAndUpdate({ q: 1 }, { $set: { hit: true } }, { sort: { rank: -1 }, returnDocument: 'after', projection: { _id: 0 } });
    expect(updated).toEqual({ q: 1, rank: 9, hit: true });
    const before = await c.findOneAndUpdate({ q: 1, rank: 2 }, { $inc: { rank: 1 } }, { returnDocument: 'before' });
    expect(before?.rank).toBe(2);
    // Newest first, by _id alone: the later of the two inserted.
    const newest = await c.findOneAndUpdate({ q: 1 }, { $set: { seen: true } }, { sort: { _id: -1 }, returnDocument: 'after' });
    expect(newest).toMatchObject({ rank: 9, seen: true });
    const upserted = await c.findOneAndUpdate({ q: 2 }, { $set: { rank: 0 } }, { upsert: true, returnDocument: 'after' });
    expect(upserted).toMatchObject({ q: 2, rank: 0 });
    const removed = await c.findOneAndDelete({ q: 2 });
    expect(removed?.rank).toBe(0);
    expect(await c.countDocuments({ q: 2 })).toBe(0);
  });

  it('deletes one and many', async () => {
    const c = db.collection('deletes');
    await c.insertMany([{ d: 1 }, { d: 1 }, { d: 1 }, { d: 2 }]);
    expect((await c.deleteOne({ d: 1 })).deletedCount).toBe(1);
    expect((await c.deleteMany({ d: 1 })).deletedCount).toBe(2);
    expect(await c.countDocuments()).toBe(1);
  });

  it('refuses to change _id', async () => {
    const c = db.collection('immutable');
    const { insertedId } = await c.insertOne({ a: 1 });
    expect(await codeOf(c.updateOne({ _id: insertedId }, { $set: { _id: new ObjectId() } }))).toBe(66);
  });
});

describe('unique indexes', () => {
  it('lets exactly one of 50 parallel inserts of one email win', async () => {
    const c = db.collection('race');
    await c.createIndex({ email: 1 }, { unique: true });
    const results = await Promise.allSettled(Array.from({ length: 50 }, () => c.insertOne({ email: 'same@x.io' })));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const codes = results.flatMap((r) => (r.status === 'rejected' ? [(r.reason as MongoServerError).code] : []));
    expect(new Set(codes)).toEqual(new Set([11000]));
  });

  it('refuses a change of email to a taken one, with keyPattern and keyValue', async () => {
    const c = db.collection('emails');
    await c.createIndex({ email: 1 }, { unique: true });
    await c.insertMany([{ email: 'a@x.io' }, { email: 'b@x.io' }]);
    let error: MongoServerError | undefined;
    try {
      await c.updateOne({ email: 'b@x.io' }, { $set: { email: 'a@x.io' } });
    } catch (err) {
      error = err as MongoServerError;
    }
    expect(error?.code).toBe(11000);
    expect(error?.keyPattern).toEqual({ email: 1 });
    expect(error?.keyValue).toEqual({ email: 'a@x.io' });
    expect(await c.countDocuments({ email: 'b@x.io' })).toBe(1);
  });

  it('answers 11000 from findAndModify too', async () => {
    const c = db.collection('emails2');
    await c.createIndex({ email: 1 }, { unique: true });
    await c.insertMany([{ email: 'a@x.io' }, { email: 'b@x.io' }]);
    expect(await codeOf(c.findOneAndUpdate({ email: 'b@x.io' }, { $set: { email: 'a@x.io' } }))).toBe(11000);
  });

  it('counts a missing field as null unless the index is sparse', async () => {
    const dense = db.collection('dense');
    await dense.createIndex({ phone: 1 }, { unique: true });
    await dense.insertOne({ name: 'one' });
    expect(await codeOf(dense.insertOne({ name: 'two' }))).toBe(11000);
    const sparse = db.collection('sparse');
    await sparse.createIndex({ phone: 1 }, { unique: true, sparse: true });
    await sparse.insertMany([{ name: 'one' }, { name: 'two' }]);
    expect(await sparse.countDocuments()).toBe(2);
  });

  it('enforces compound and partial unique indexes', async () => {
    const compound = db.collection('compound');
    await compound.createIndex({ kind: 1, email: 1 }, { unique: true });
    await compound.insertMany([{ kind: 'admin', email: 'a@x.io' }, { kind: 'user', email: 'a@x.io' }]);
    expect(await codeOf(compound.insertOne({ kind: 'user', email: 'a@x.io' }))).toBe(11000);
    const partial = db.collection('partial');
    await partial.createIndex({ email: 1 }, { unique: true, partialFilterExpression: { active: true } });
    await partial.insertMany([{ email: 'p@x.io', active: false }, { email: 'p@x.io', active: false }, { email: 'p@x.io', active: true }]);
    expect(await codeOf(partial.insertOne({ email: 'p@x.io', active: true }))).toBe(11000);
  });

  it('fails to create a unique index over data that violates it', async () => {
    const c = db.collection('violating');
    await c.insertMany([{ e: 1 }, { e: 1 }]);
    expect(await codeOf(c.createIndex({ e: 1 }, { unique: true }))).toBe(11000);
  });
});

describe('collections and indexes', () => {
  it('creates, lists and drops collections and indexes', async () => {
    await db.createCollection('made');
    expect(await codeOf(db.createCollection('made'))).toBe(48);
    expect((await db.listCollections({ name: 'made' }).toArray()).map((c) => c.name)).toEqual(['made']);
    const c = db.collection('made');
    await c.createIndex({ a: 1 }, { name: 'a_idx' });
    await c.createIndex({ a: 1 }, { name: 'a_idx' }); // same again is a no-op
    expect((await c.listIndexes().toArray()).map((i) => i.name).sort()).toEqual(['_id_', 'a_idx']);
    await c.dropIndex('a_idx');
    expect((await c.listIndexes().toArray()).map((i) => i.name)).toEqual(['_id_']);
    expect(await codeOf(c.dropIndex('nope'))).toBe(27);
    await c.drop();
    expect(await db.listCollections({ name: 'made' }).toArray()).toEqual([]);
  });

  it('answers NamespaceNotFound (26) for the indexes of a missing collection', async () => {
    expect(await codeOf(db.collection('never').listIndexes().toArray())).toBe(26);
  });

  it('answers CommandNotFound (59) for an unknown command and keeps serving', async () => {
    expect(await codeOf(db.command({ noSuchCommand: 1 }))).toBe(59);
    expect(await db.command({ ping: 1 })).toMatchObject({ ok: 1 });
  });

  it('removes documents past a TTL index', async () => {
    const c = db.collection('ttl');
    await c.createIndex({ expiresAt: 1 }, { expireAfterSeconds: 0 });
    await c.insertMany([{ k: 'old', expiresAt: new Date(Date.now() - 1000) }, { k: 'new', expiresAt: new Date(Date.now() + 3_600_000) }]);
    // MongoDB's own monitor sweeps every 60 s; the stand-in's harness sweep every 200 ms.
    const deadline = Date.now() + 75_000;
    while ((await c.countDocuments({ k: 'old' })) > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
    expect((await c.find({}, { projection: { _id: 0, k: 1 } }).toArray()).map((d) => d.k)).toEqual(['new']);
  }, 90_000);
});

describe('BSON types', () => {
  it('round-trips every type the services store', async () => {
    const c = db.collection('types');
    const doc = {
      _id: new ObjectId(),
      at: new Date('2026-01-02T03:04:05.678Z'),
      bytes: new Binary(Buffer.from([0, 1, 2, 255])),
      big: Long.fromString('9007199254740993'),
      money: Decimal128.fromString('12.345'),
      nested: [[1, 2], [{ x: 'y' }], []],
      flag: true,
      nothing: null,
      text: 'zażółć',
    };
    await c.insertOne(doc);
    const back = await c.findOne({ _id: doc._id });
    expect(back?._id.equals(doc._id)).toBe(true);
    expect(back?.at).toEqual(doc.at);
    expect(Buffer.from((back?.bytes as Binary).buffer)).toEqual(Buffer.from([0, 1, 2, 255]));
    expect(String(back?.big)).toBe('9007199254740993');
    expect(String(back?.money)).toBe('12.345');
    expect(back?.nested).toEqual(doc.nested);
    expect([back?.flag, back?.nothing, back?.text]).toEqual([true, null, 'zażółć']);
  });

  it('stores and streams back a 2 MiB GridFS file', async () => {
    const bucket = new GridFSBucket(db, { bucketName: 'blobs' });
    const content = Buffer.alloc(2 * 1024 * 1024);
    for (let i = 0; i < content.length; i++) content[i] = (i * 7) % 251;
    const upload = bucket.openUploadStream('big.bin', { metadata: { kind: 'test' } });
    await new Promise<void>((resolve, reject) => upload.once('finish', () => resolve()).once('error', reject).end(content));
    const chunks: Buffer[] = [];
    await new Promise<void>((resolve, reject) =>
      bucket.openDownloadStream(upload.id).on('data', (d: Buffer) => chunks.push(d)).once('end', () => resolve()).once('error', reject),
    );
    expect(Buffer.concat(chunks).equals(content)).toBe(true);
    const [file] = await bucket.find({ _id: upload.id }).toArray();
    expect(file.length).toBe(content.length);
    await bucket.delete(upload.id);
    expect(await bucket.find({ _id: upload.id }).toArray()).toEqual([]);
  });
});
