// MongoDB connection helper (mongoose): no command buffering, so a store outage answers fast instead of hanging.
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

export async function connectMongo(url: string, logger: Logger, options: MongoOptions = {}): Promise<Connection> {
  return retryUntil(
    async () => {
      const connection = mongoose.createConnection(url, {
        dbName: options.dbName,
        bufferCommands: false,
        autoIndex: true,
        serverSelectionTimeoutMS: 2_000,
        socketTimeoutMS: 10_000,
        maxPoolSize: 20,
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
