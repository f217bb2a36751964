// MongoDB connection helper (mongoose): no command buffering, so a store outage answers fast instead of hanging.
// A replica set's URL works as given (`mongodb://a,b,c/?replicaSet=rs0`, or `mongodb+srv://`): the
// driver finds the primary and follows an election. Every write waits for a majority of the set and
// its journal, and is retried once on a new primary (retryable writes), unless the URL says otherwise:
// an account, a reset request or an outbox event a failover rolled back would be lost without a trace.
import mongoose, { type Connection, type Model } from 'mongoose';
import type { Logger } from 'pino';
import { redactUrl, retryUntil } from '../retry';

export interface MongoOptions {
  dbName?: string;
  deadlineMs?: number;
}

// Mongoose keeps the stack of every query's first execution, for a 'Query was already executed'
// error; with --enable-source-maps each one costs a source-mapped stack trace (seen in the login
// profiles). No code here executes a query twice.
mongoose.set('skipOriginalStackTraces', true);

/** The durability every connection asks for, unless its URL sets its own (`w=`, `journal=`, `retryWrites=`). */
export function durabilityOptions(url: string): { writeConcern?: { w: 'majority'; journal: true; wtimeoutMS: number }; retryWrites?: true; retryReads?: true } {
  const query = new URLSearchParams(url.includes('?') ? url.slice(url.indexOf('?') + 1) : '');
  const has = (name: string) => [...query.keys()].some((key) => key.toLowerCase() === name.toLowerCase());
  return {
    // A majority's answer within 5 s, else the write fails (503) rather than hangs on a set that lost its majority.
    ...(has('w') || has('journal') || has('j') || has('wtimeoutMS') ? {} : { writeConcern: { w: 'majority', journal: true, wtimeoutMS: 5_000 } }),
    ...(has('retryWrites') ? {} : { retryWrites: true }),
    ...(has('retryReads') ? {} : { retryReads: true }),
  };
}

export async function connectMongo(url: string, logger: Logger, options: MongoOptions = {}): Promise<Connection> {
  return retryUntil(
    async () => {
      const connection = mongoose.createConnection(url, {
        dbName: options.dbName,
        bufferCommands: false,
        autoIndex: true,
        // An election takes up to ~12 s (electionTimeoutMillis 10 s + catch-up): a request waits at
        // most this long for a primary, then answers 503; the next one finds the new primary.
        serverSelectionTimeoutMS: 2_000,
        socketTimeoutMS: 10_000,
        maxPoolSize: 20,
        ...durabilityOptions(url),
      });
      try {
        await connection.asPromise();
      } catch (err) {
        await connection.close().catch(() => undefined);
        throw err;
      }
      connection.on('disconnected', () => logger.warn('MongoDB disconnected'));
      connection.on('reconnected', () => logger.info('MongoDB reconnected'));
      return connection;
    },
    { what: `MongoDB at ${redactUrl(url)}`, logger, deadlineMs: options.deadlineMs },
  );
}

export const isMongoReady = (connection: Connection) => connection.readyState === 1;

/** Whether a write failed on a unique index (MongoDB error 11000). */
export const isDuplicateKey = (err: unknown) => (err as { code?: number } | null)?.code === 11000;

/** The connection's model `name` over `collection`, made once per connection (a second repository on it reuses the first's). */
export function modelOn<D>(connection: Connection, name: string, schema: mongoose.Schema<D>, collection: string): Model<D> {
  return (connection.models[name] as Model<D> | undefined) ?? connection.model<D>(name, schema, collection);
}
