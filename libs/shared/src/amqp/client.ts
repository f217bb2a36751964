// AMQP connection helper: connects with retry, reconnects with back-off, and re-runs each
// registered setup (topology, consumers, publisher channels) on every new connection.
import amqp from 'amqplib';
import type { Logger } from 'pino';
import { redactUrl, retryUntil, sleep } from '../retry';

export type AmqpConnection = Awaited<ReturnType<typeof amqp.connect>>;
export type AmqpSetup = (connection: AmqpConnection) => Promise<void>;

export interface AmqpClientOptions {
  deadlineMs?: number;
  connectionName?: string;
}

export class AmqpClient {
  private connection?: AmqpConnection;
  private readonly setups: AmqpSetup[] = [];
  private stopping = false;

  constructor(
    private readonly url: string,
    private readonly logger: Logger,
    private readonly options: AmqpClientOptions = {},
  ) {}

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
      what: `RabbitMQ at ${redactUrl(this.url)}`,
      logger: this.logger,
      deadlineMs: this.options.deadlineMs,
    });
  }

  private async connectOnce(): Promise<void> {
    const connection = await amqp.connect(this.url, {
      clientProperties: { connection_name: this.options.connectionName ?? 'account-service' },
    });
    connection.on('error', (err: Error) => this.logger.warn({ reason: err.message }, 'RabbitMQ connection error'));
    connection.on('close', () => {
      if (this.connection !== connection) return;
      this.connection = undefined;
      if (!this.stopping) void this.reconnect();
    });
    try {
      for (const setup of this.setups) await setup(connection);
    } catch (err) {
      await connection.close().catch(() => undefined);
      throw err;
    }
    this.connection = connection;
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
        this.logger.debug({ reason: (err as Error).message }, 'RabbitMQ reconnect failed');
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
