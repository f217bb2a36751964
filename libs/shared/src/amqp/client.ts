// AMQP connection helper: connects with retry, reconnects with back-off, and re-runs each
// registered setup (topology, consumers, publisher channels) on every new connection. AMQP_URL may
// name several nodes of a RabbitMQ cluster, comma-separated: each attempt goes to the next one, so a
// connection whose node is lost comes back on another (the queues are quorum queues, replicated).
import amqp from 'amqplib';
import type { Logger } from 'pino';
import { amqpNodeUrls } from './nodes';
import { redactUrl, retryUntil, sleep } from '../retry';

export { amqpNodeUrls } from './nodes';

/** A connection to the first node of `value` (an AMQP_URL) that answers: for tools and tests. */
export async function connectAnyNode(value: string): Promise<AmqpConnection> {
  let last: unknown;
  for (const url of amqpNodeUrls(value)) {
    try {
      return await amqp.connect(url, { timeout: 5_000 });
    } catch (err) {
      last = err;
    }
  }
  throw last;
}

export type AmqpConnection = Awaited<ReturnType<typeof amqp.connect>>;
export type AmqpSetup = (connection: AmqpConnection) => Promise<void>;

export interface AmqpClientOptions {
  deadlineMs?: number;
  connectionName?: string;
  /**
   * How long the setups of one connection may take (15 s). amqplib's calls have no time limit, and
   * a queue declaration can wait on a quorum queue whose leader just died: past this the
   * connection is dropped and the next node tried, rather than a consumer never coming back.
   */
  setupTimeoutMs?: number;
}

export class AmqpClient {
  private connection?: AmqpConnection;
  private readonly setups: AmqpSetup[] = [];
  private stopping = false;
  private readonly urls: string[];
  /** The node the next attempt goes to; replicas start at a random one, so they spread over the cluster. */
  private next: number;

  constructor(
    url: string,
    private readonly logger: Logger,
    private readonly options: AmqpClientOptions = {},
  ) {
    this.urls = amqpNodeUrls(url);
    this.next = Math.floor(Math.random() * this.urls.length);
  }

  /** Registers a setup; runs it now when connected, and again after every reconnect. */
  async use(setup: AmqpSetup): Promise<void> {
    this.setups.push(setup);
    if (this.connection) await setup(this.connection);
  }

  get ready(): boolean {
    return this.connection !== undefined;
  }

  async start(): Promise<void> {
    await retryUntil(() => this.connectOnce(), {
      what: `RabbitMQ at ${this.urls.map(redactUrl).join(', ')}`,
      logger: this.logger,
      deadlineMs: this.options.deadlineMs,
    });
  }

  private async connectOnce(): Promise<void> {
    const url = this.urls[this.next % this.urls.length];
    this.next += 1;
    const connection = await amqp.connect(url, {
      timeout: 5_000,
      clientProperties: { connection_name: this.options.connectionName ?? 'account-service' },
    });
    connection.on('error', (err: Error) => this.logger.warn({ reason: err.message }, 'RabbitMQ connection error'));
    connection.on('close', () => {
      if (this.connection !== connection) return;
      this.connection = undefined;
      if (!this.stopping) void this.reconnect();
    });
    let timer: NodeJS.Timeout | undefined;
    const limit = this.options.setupTimeoutMs ?? 15_000;
    try {
      await Promise.race([
        (async () => {
          for (const setup of this.setups) await setup(connection);
        })(),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error(`RabbitMQ setup (queues, consumers, channels) did not finish within ${limit} ms`)), limit);
        }),
      ]);
    } catch (err) {
      await connection.close().catch(() => undefined);
      throw err;
    } finally {
      clearTimeout(timer);
    }
    this.connection = connection;
    if (this.urls.length > 1) this.logger.info({ node: redactUrl(url.replace(/\?.*$/, '')) }, 'RabbitMQ connected');
  }

  private async reconnect(): Promise<void> {
    this.logger.warn('RabbitMQ connection lost; reconnecting');
    let delay = 200;
    while (!this.stopping) {
      try {
        await this.connectOnce();
        this.logger.info('RabbitMQ reconnected');
        return;
      } catch (err) {
        this.logger.warn({ reason: (err as Error).message, retry_in_ms: delay }, 'RabbitMQ reconnect failed');
        await sleep(delay);
        delay = Math.min(delay * 2, 5_000);
      }
    }
  }

  async close(): Promise<void> {
    this.stopping = true;
    const connection = this.connection;
    this.connection = undefined;
    if (connection) await connection.close().catch(() => undefined);
  }
}
