// The queues a notifier declares, read back from the broker: every one is a quorum queue, and a
// retry queue dead-letters at least once (a message on its way back is never dropped). The broker
// refuses to redeclare a queue with other arguments, which is how each is checked.
import amqp from 'amqplib';
import { isolatedNames, testUrls } from '@acct/test-harness/isolation';
import { notifierQueues, removeNotifierNames, startTestNotifier, TEST_RETRY_DELAYS_MS } from '@acct/test-stack/notifier';
import { queueSpecs, retryQueueArguments } from '../src/entry-points/amqp/topology';

const names = isolatedNames('notiftopo');
let connection: amqp.ChannelModel;

beforeAll(async () => {
  connection = await amqp.connect(testUrls().amqp);
  const notifier = await startTestNotifier(names);
  await notifier.stop();
});
afterAll(async () => {
  await connection.close();
  await removeNotifierNames(names);
});

/** Whether the broker accepts declaring `queue` with `args` (it refuses arguments other than the queue's). */
async function accepts(queue: string, args: Record<string, unknown>): Promise<boolean> {
  const channel = await connection.createChannel();
  channel.on('error', () => undefined);
  try {
    await channel.assertQueue(queue, { durable: true, arguments: args });
    await channel.close();
    return true;
  } catch {
    return false;
  }
}

describe('the notifier’s queues', () => {
  it('are all quorum queues: work, retry and dead-letter alike', async () => {
    const queues = notifierQueues(names.queuePrefix);
    expect(queues.length).toBeGreaterThanOrEqual(6);
    for (const queue of queues) {
      const retry = queueSpecs(names.queuePrefix, TEST_RETRY_DELAYS_MS)
        .flatMap((spec) => spec.retries.map((r) => ({ ...r, work: spec.name })))
        .find((r) => r.name === queue);
      const declared = retry ? retryQueueArguments(retry.work, retry.delayMs) : {};
      expect([queue, await accepts(queue, { ...declared, 'x-queue-type': 'classic' })]).toEqual([queue, false]);
      expect([queue, await accepts(queue, { ...declared, 'x-queue-type': 'quorum' })]).toEqual([queue, true]);
    }
  });

  it('send a retried message back at least once: the retry queues refuse at-most-once dead-lettering', async () => {
    for (const spec of queueSpecs(names.queuePrefix, TEST_RETRY_DELAYS_MS)) {
      for (const retry of spec.retries) {
        const declared = retryQueueArguments(spec.name, retry.delayMs);
        expect(declared['x-dead-letter-strategy']).toBe('at-least-once');
        expect(await accepts(retry.name, { ...declared, 'x-dead-letter-strategy': 'at-most-once' })).toBe(false);
        expect(await accepts(retry.name, declared)).toBe(true);
      }
    }
  });
});
