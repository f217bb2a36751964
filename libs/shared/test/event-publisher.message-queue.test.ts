// The event publisher on a real broker: a channel the broker closes on its own (a channel error,
// the connection still up) comes back, instead of leaving every publish to fail until the next
// reconnect (the outbox would hold every event meanwhile: no login push); and a channel the
// broker never confirms on, or keeps nacking on, is given up for a new one on a new connection.
import type { ConfirmChannel } from 'amqplib';
import { createMemoryLogger } from '@acct/shared';
import { connectAnyNode, connectPublisher, type AmqpClient, type EventPublisher } from '@acct/shared/amqp';
import { isolatedNames, testUrls } from '@acct/test-harness/isolation';
import { until } from '@acct/test-harness/until';
import { scaled } from '@acct/test-harness/time-scale';

const names = isolatedNames('publisher');
let amqp: AmqpClient;
let publisher: EventPublisher;
const { logger, records } = createMemoryLogger('info');

const queue = `${names.exchange}.logins`;
/** A queue that takes one message and nacks every publish after it (x-overflow reject-publish). */
const full = `${names.exchange}.full`;

beforeAll(async () => {
  ({ amqp, publisher } = await connectPublisher({ url: testUrls().amqp, exchange: names.exchange, connectionName: 'publisher-test' }, logger));
  // A consumer's queue, bound for logins only.
  const connection = await connectAnyNode(testUrls().amqp);
  const channel = await connection.createChannel();
  await channel.assertQueue(queue, { durable: false });
  await channel.bindQueue(queue, names.exchange, 'user.login.succeeded');
  await channel.assertQueue(full, { durable: false, arguments: { 'x-max-length': 1, 'x-overflow': 'reject-publish' } });
  await channel.bindQueue(full, names.exchange, 'account.deleted');
  await connection.close();
});
afterAll(async () => {
  await amqp?.close();
  const connection = await connectAnyNode(testUrls().amqp);
  const channel = await connection.createChannel();
  await channel.deleteQueue(queue);
  await channel.deleteQueue(full);
  await channel.deleteExchange(names.exchange);
  await connection.close();
});

const publishOk = () =>
  publisher.publish('user.login.succeeded', `evt-${Date.now()}-${Math.random()}`, { userId: 'u1', ip: '127.0.0.1' }).then(
    () => true,
    () => false,
  );

describe('event publisher', () => {
  it('when no queue is bound for an event, then the publish fails instead of being confirmed and dropped', async () => {
    expect(await publishOk()).toBe(true);
    await expect(publisher.publish('device.registered', `evt-${Date.now()}`, { userId: 'u1' })).rejects.toThrow(`no queue is bound for device.registered on ${names.exchange}`);
    // The channel is kept: the next routable publish is confirmed.
    expect(await publishOk()).toBe(true);
  });

  it('publishes again after the broker closed its channel alone', async () => {
    expect(await publishOk()).toBe(true);
    // A channel error: the broker closes this channel (404 NOT_FOUND) and keeps the connection.
    const channel = (publisher as unknown as { channel: ConfirmChannel }).channel;
    await expect(channel.checkExchange(`${names.exchange}.missing`)).rejects.toThrow(/NOT_FOUND/);
    await until(publishOk, 10_000, 'a publish confirmed after the channel error');
    expect(records.some((r) => r.message === 'RabbitMQ reconnected')).toBe(true);
  });

  it('when the broker never confirms a publish, then it fails within the bound and the next one goes out on a new connection', async () => {
    expect(await publishOk()).toBe(true);
    const reconnectsBefore = records.filter((r) => r.message === 'RabbitMQ reconnected').length;
    // The broker takes the publish and never answers (a node stuck, or cut off behind a proxy that
    // keeps the socket open): the channel's confirm callback is never called.
    const channel = (publisher as unknown as { channel: ConfirmChannel }).channel;
    const publish = channel.publish.bind(channel);
    channel.publish = ((exchange: string, key: string, content: Buffer, options: object) => publish(exchange, key, content, options, () => undefined)) as ConfirmChannel['publish'];
    const started = Date.now();
    await expect(publisher.publish('user.login.succeeded', `evt-${Date.now()}`, { userId: 'u1', ip: '127.0.0.1' })).rejects.toThrow(/did not confirm the publish within 5000 ms/);
    expect(Date.now() - started).toBeLessThan(scaled(7_000));
    await until(publishOk, 10_000, 'a publish confirmed on the new connection');
    expect(records.filter((r) => r.message === 'RabbitMQ reconnected').length).toBe(reconnectsBefore + 1);
  }, 30_000);

  it('when the broker nacks publishes three times in a row, then the next one goes out on a new connection', async () => {
    expect(await publishOk()).toBe(true);
    const reconnectsBefore = records.filter((r) => r.message === 'RabbitMQ reconnected').length;
    const deleted = (n: number) => publisher.publish('account.deleted', `evt-del-${Date.now()}-${n}`, { kind: 'user', accountId: 'u1', email: 'a@example.com', name: 'A' });
    await deleted(0); // the one message the full queue takes
    await expect(deleted(1)).rejects.toThrow(/nack/);
    await expect(deleted(2)).rejects.toThrow(/nack/);
    // Two nacks: the channel is kept.
    expect(await publishOk()).toBe(true);
    for (const n of [3, 4, 5]) await expect(deleted(n)).rejects.toThrow(/nack/);
    // Three in a row: given up, and the client connects again.
    await until(publishOk, 10_000, 'a publish confirmed on the new connection');
    expect(records.filter((r) => r.message === 'RabbitMQ reconnected').length).toBe(reconnectsBefore + 1);
  }, 30_000);
});
