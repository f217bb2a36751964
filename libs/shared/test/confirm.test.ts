// A publish's confirm is waited for within a bound: the broker's answer when it comes in time,
// otherwise a failure and one call to give the channel up; a late answer changes nothing.
import { confirmWithin } from '@acct/shared/amqp';

describe('confirmWithin', () => {
  it('when the broker confirms in time, then it resolves and the channel is kept', async () => {
    const giveUp = jest.fn();
    await expect(confirmWithin((done) => setTimeout(() => done(null), 10), 1_000, giveUp)).resolves.toBeUndefined();
    expect(giveUp).not.toHaveBeenCalled();
  });

  it('when the broker nacks, then it fails with the broker reason and the channel is kept', async () => {
    const giveUp = jest.fn();
    await expect(confirmWithin((done) => setTimeout(() => done(new Error('message nacked')), 10), 1_000, giveUp)).rejects.toThrow('message nacked');
    expect(giveUp).not.toHaveBeenCalled();
  });

  it('when no answer comes within the bound, then it fails then, gives the channel up once, and ignores the late answer', async () => {
    const giveUp = jest.fn();
    let answer: ((err: unknown) => void) | undefined;
    const started = Date.now();
    await expect(confirmWithin((done) => (answer = done), 200, giveUp)).rejects.toThrow('RabbitMQ did not confirm the publish within 200 ms');
    expect(Date.now() - started).toBeGreaterThanOrEqual(190);
    answer!(null);
    expect(giveUp).toHaveBeenCalledTimes(1);
  });

  it('when sending throws, then it fails at once without giving the channel up', async () => {
    const giveUp = jest.fn();
    await expect(
      confirmWithin(
        () => {
          throw new Error('Channel closed');
        },
        1_000,
        giveUp,
      ),
    ).rejects.toThrow('Channel closed');
    expect(giveUp).not.toHaveBeenCalled();
  });
});
