// Protocol-level behaviour of the stand-in itself (not a fidelity test: it always runs on the stand-in).
import net from 'node:net';
import { BSON } from 'bson';
import { startMongoStandin, type MongoStandin } from '@acct/mongo-standin';
import { MongoClient } from 'mongodb';

let standin: MongoStandin;
beforeAll(async () => {
  standin = await startMongoStandin({ ttlSweepMs: 50 });
});
afterAll(() => standin.close());

function opQuery(requestId: number, ns: string, command: object): Buffer {
  const body = Buffer.from(BSON.serialize(command));
  const nsBytes = Buffer.from(`${ns}\0`);
  const header = Buffer.alloc(20);
  const length = 20 + nsBytes.length + 8 + body.length;
  header.writeInt32LE(length, 0);
  header.writeInt32LE(requestId, 4);
  header.writeInt32LE(2004, 12);
  return Buffer.concat([header, nsBytes, Buffer.alloc(8), body]);
}

function opMsg(requestId: number, command: object, flags = 0): Buffer {
  const body = Buffer.from(BSON.serialize(command));
  const header = Buffer.alloc(21);
  header.writeInt32LE(21 + body.length, 0);
  header.writeInt32LE(requestId, 4);
  header.writeInt32LE(2013, 12);
  header.writeUInt32LE(flags, 16);
  return Buffer.concat([header, body]);
}

async function exchange(messages: Buffer[], expectReplies: number): Promise<Buffer[]> {
  const socket = net.connect(standin.port, '127.0.0.1');
  const replies: Buffer[] = [];
  let pending = Buffer.alloc(0);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => (socket.destroy(), resolve(replies)), 500);
    socket.on('data', (chunk) => {
      pending = Buffer.concat([pending, chunk]);
      while (pending.length >= 4 && pending.length >= pending.readInt32LE(0)) {
        replies.push(pending.subarray(0, pending.readInt32LE(0)));
        pending = pending.subarray(pending.readInt32LE(0));
      }
      if (replies.length >= expectReplies && expectReplies > 0) {
        clearTimeout(timer);
        socket.destroy();
        resolve(replies);
      }
    });
    socket.on('error', reject);
    socket.write(Buffer.concat(messages));
  });
}

describe('mongo stand-in wire protocol', () => {
  it('answers the legacy OP_QUERY handshake with an OP_REPLY describing a writable standalone', async () => {
    const [reply] = await exchange([opQuery(7, 'admin.$cmd', { ismaster: 1, helloOk: true })], 1);
    expect(reply.readInt32LE(8)).toBe(7); // responseTo
    expect(reply.readInt32LE(12)).toBe(1); // OP_REPLY
    const doc = BSON.deserialize(reply.subarray(36));
    expect(doc).toMatchObject({ ok: 1, ismaster: true, isWritablePrimary: true, helloOk: true, minWireVersion: 0, maxWireVersion: 21 });
    expect(doc.logicalSessionTimeoutMinutes).toBeGreaterThan(0);
    expect(doc).not.toHaveProperty('setName');
    expect(doc).not.toHaveProperty('topologyVersion');
  });

  it('executes a moreToCome OP_MSG without replying, then answers the next one', async () => {
    const replies = await exchange(
      [opMsg(1, { insert: 'quiet', documents: [{ a: 1 }], $db: 'wire' }, 1 << 1), opMsg(2, { count: 'quiet', $db: 'wire' })],
      1,
    );
    expect(replies).toHaveLength(1);
    expect(replies[0].readInt32LE(8)).toBe(2);
    expect(BSON.deserialize(replies[0].subarray(21))).toMatchObject({ n: 1, ok: 1 });
  });

  it('answers an unsupported opcode with an error and stays up for the driver', async () => {
    const bogus = Buffer.alloc(16);
    bogus.writeInt32LE(16, 0);
    bogus.writeInt32LE(2010, 12);
    const [reply] = await exchange([bogus], 1);
    expect(BSON.deserialize(reply.subarray(21))).toMatchObject({ ok: 0 });
    const client = await new MongoClient(standin.url).connect();
    expect(await client.db('x').command({ ping: 1 })).toMatchObject({ ok: 1 });
    await client.close();
  });

  it('refuses transactions, which a standalone does not support', async () => {
    const client = await new MongoClient(standin.url).connect();
    const session = client.startSession();
    try {
      session.startTransaction();
      await expect(client.db('x').collection('t').insertOne({ a: 1 }, { session })).rejects.toMatchObject({ code: 20 });
    } finally {
      await session.endSession();
      await client.close();
    }
  });
});
