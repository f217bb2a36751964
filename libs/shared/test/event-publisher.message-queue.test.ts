// The event publisher on a real broker: a channel the broker closes on its own (a channel error,
// the connection still up) comes back, instead of leaving every publish to fail until the next
// reconnect (the outbox would hold every event meanwhile: no login push).
import type { ConfirmChannel } from 'amqplib';
import { createMemoryLogger } from '@acct/shared';
import { connectAnyNode, connectPublisher, type AmqpClient, type EventPublisher } from '@acct/shared/amqp';
import { isolatedNames, testUrls } from '@acct/test-harness/isolation';
import { until } from '@acct/test-harness/until';

const names = isolatedNames('publisher');
let amqp: AmqpClient;
let publisher: EventPublisher;
const { logger, records } = createMemoryLogger('info');

beforeAll(async () => {
  ({ amqp, publisher } = await connectPublisher({ url: testUrls().amqp, exchange: names.exchange, connectionName: 'publisher-test' }, logger));
});
afterAll(async () => {
  await amqp?.close();
  const connection = await connectAnyNode(testUrls().amqp);
  const channel = await connection.createChannel();
  await channel.deleteExchange(names.exchange);
  await connection.close();
});

const publishOk = () =>
  publisher.publish('user.login.succeeded', `evt-${Date.now()}-${Math.random()}`, { userId: 'u1', ip: '127.0.0.1' }).then(
    () => true,
    () => false,
  );

describe('event publisher', () => {
  it('publishes again after the broker closed its channel alone', async () => {
    expect(await publishOk()).toBe(true);
    // A channel error: the broker closes this channel (404 NOT_FOUND) and keeps the connection.
    const channel = (publisher as unknown as { channel: ConfirmChannel }).channel;
    await expect(channel.checkExchange(`${names.exchange}.missing`)).rejects.toThrow(/NOT_FOUND/);
    await until(publishOk, 10_000, 'a publish confirmed after the channel error');
    expect(records.some((r) => r.message === 'RabbitMQ reconnected')).toBe(true);
  });
});
