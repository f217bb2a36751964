import { nextStep } from '../src/domain/retry-policy';

describe('nextStep (retry or dead-letter)', () => {
  const retries = [
    { name: 'q.retry.1000ms', delayMs: 1000 },
    { name: 'q.retry.10000ms', delayMs: 10000 },
  ];
  const transient = { permanent: false, reason: 'smtp timeout' };
  const permanent = { permanent: true, reason: 'mailbox unknown' };

  it.each([
    ['the first failure goes to the first delay', transient, 1, { action: 'retry', queue: 'q.retry.1000ms', delayMs: 1000, attempt: 2 }],
    ['the second failure goes to the second delay', transient, 2, { action: 'retry', queue: 'q.retry.10000ms', delayMs: 10000, attempt: 3 }],
    ['a failure after the last delay is dead-lettered', transient, 3, { action: 'dead_letter', reason: 'attempts exhausted: smtp timeout' }],
    ['an attempt header past every delay is dead-lettered', transient, 99, { action: 'dead_letter', reason: 'attempts exhausted: smtp timeout' }],
    ['a garbled attempt header is dead-lettered, never retried forever', transient, Number.NaN, { action: 'dead_letter', reason: 'attempts exhausted: smtp timeout' }],
    ['a permanent failure is dead-lettered at once', permanent, 1, { action: 'dead_letter', reason: 'permanent: mailbox unknown' }],
  ])('%s', (_label, failure, attempt, expected) => {
    expect(nextStep(failure, attempt, retries)).toEqual(expected);
  });

  it('dead-letters the first failure when no retry delay is configured', () => {
    expect(nextStep(transient, 1, [])).toEqual({ action: 'dead_letter', reason: 'attempts exhausted: smtp timeout' });
  });
});
