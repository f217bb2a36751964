// The stand-in server: a TCP listener on loopback that frames messages and feeds them to the engine.
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { Engine, MAX_MESSAGE_SIZE } from './engine';
import { CommandError } from './errors';
import { encodeMsg, encodeReply, parseMessage } from './wire';

export interface StandinOptions {
  port?: number;
  host?: string;
  /** How often TTL indexes are swept (MongoDB: 60 s; shorter here so tests stay fast). */
  ttlSweepMs?: number;
}

export interface MongoStandin {
  url: string;
  port: number;
  engine: Engine;
  close(): Promise<void>;
}

export async function startMongoStandin(options: StandinOptions = {}): Promise<MongoStandin> {
  const host = options.host ?? '127.0.0.1';
  const engine = new Engine();
  const sockets = new Set<net.Socket>();
  let nextRequestId = 1;
  let nextConnectionId = 1;

  const server = net.createServer((socket) => {
    const connectionId = nextConnectionId++;
    sockets.add(socket);
    socket.setNoDelay(true);
    let pending = Buffer.alloc(0);
    socket.on('data', (chunk) => {
      pending = pending.length ? Buffer.concat([pending, chunk]) : chunk;
      while (pending.length >= 4) {
        const length = pending.readInt32LE(0);
        if (length < 16 || length > MAX_MESSAGE_SIZE) {
          socket.destroy();
          return;
        }
        if (pending.length < length) break;
        const message = pending.subarray(0, length);
        pending = pending.subarray(length);
        const reply = handle(message, connectionId);
        if (reply) socket.write(reply);
      }
    });
    socket.on('error', () => socket.destroy());
    socket.on('close', () => sockets.delete(socket));
  });

  function handle(message: Buffer, connectionId: number): Buffer | undefined {
    const requestId = nextRequestId++;
    let incoming;
    try {
      incoming = parseMessage(message);
    } catch (err) {
      const reply = err instanceof CommandError ? err.toReply() : { ok: 0, errmsg: String(err), code: 1 };
      return encodeMsg(reply, requestId, message.readInt32LE(4));
    }
    const ctx = { connectionId };
    if (incoming.kind === 'query') {
      const db = incoming.fullCollectionName.split('.')[0];
      const command = unwrapLegacyQuery(incoming.command);
      return encodeReply(engine.run(command, db, ctx), requestId, incoming.header.requestId);
    }
    const db = String(incoming.command.$db ?? 'admin');
    const reply = engine.run(incoming.command, db, ctx);
    return incoming.moreToCome ? undefined : encodeMsg(reply, requestId, incoming.header.requestId);
  }

  const sweep = setInterval(() => engine.sweepExpired(), options.ttlSweepMs ?? 1_000);
  sweep.unref();

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    url: `mongodb://${host}:${port}`,
    port,
    engine,
    close: () =>
      new Promise<void>((resolve) => {
        clearInterval(sweep);
        sockets.forEach((s) => s.destroy());
        server.close(() => resolve());
      }),
  };
}

/** Legacy OP_QUERY commands may come wrapped as `{$query: {...}, $readPreference: ...}`. */
function unwrapLegacyQuery(command: Record<string, unknown>): Record<string, unknown> {
  const inner = command.$query ?? command.query;
  return inner && typeof inner === 'object' && Object.keys(command)[0]?.startsWith('$') ? (inner as Record<string, unknown>) : command;
}
