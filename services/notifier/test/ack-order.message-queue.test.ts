// An event is recorded as done before its message is acked: a crash between the two then costs a
// dropped duplicate on redelivery, never a second push.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { Channel } = require('amqplib/lib/channel_model');
import type { ConsumeMessage } from 'amqplib';
import { IdempotencyStore } from '../src/data-access/idempotency-store';
import { isolatedNames } from '@acct/test-harness/isolation';
import { until } from '@acct/test-harness/until';
import { startTestNotifier, TestPublisher, type TestNotifier, removeNotifierNames } from '@acct/test-stack/notifier';

const names = isolatedNames('notifackorder');
let publisher: TestPublisher;
let notifier: TestNotifier;
const steps: string[] = [];

beforeAll(async () => {
  const markDone = IdempotencyStore.prototype.markDone;
  jest.spyOn(IdempotencyStore.prototype, 'markDone').mockImplementation(async function (this: IdempotencyStore, eventId: string) {
    await markDone.call(this, eventId);
    steps.push(`done ${eventId}`);
  });
  const ack = Channel.prototype.ack;
  jest.spyOn(Channel.prototype, 'ack').mockImplementation(function (this: unknown, ...args: unknown[]) {
    steps.push(`ack ${(args[0] as ConsumeMessage).properties.messageId}`);
    return ack.apply(this, args);
  });
  publisher = await TestPublisher.open(names.exchange);
  notifier = await startTestNotifier(names);
});
afterAll(async () => {
  jest.restoreAllMocks();
  await notifier?.stop();
  await removeNotifierNames(names);
  await publisher?.close();
});

describe('notifier: the order of done and ack', () => {
  it('records the event done before it acks the message', async () => {
    const device = await publisher.publish('device.registered', { userId: 'order-user', deviceId: 'd1', platform: 'linux', pushToken: 'tok-order' });
    await until(() => notifier.logs.some((r) => r.event_id === device && r.outcome === 'stored'));
    const login = await publisher.publish('user.login.succeeded', { userId: 'order-user', ip: '1.2.3.4' });
    await until(() => steps.includes(`ack ${login}`));
    expect(steps.filter((s) => s.endsWith(` ${login}`))).toEqual([`done ${login}`, `ack ${login}`]);
    expect(notifier.push.sent.filter((s) => s.tokens.includes('tok-order'))).toHaveLength(1);
  });
});
