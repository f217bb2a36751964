import { assertPasswordPolicy, passwordWork } from '../src/domain/shared/passwords';
import { BcryptPasswordHasher, Semaphore, TaskRefused } from '../src/security/password-hasher';

describe('Semaphore, bounded', () => {
  const gate = () => {
    let open!: () => void;
    const opened = new Promise<void>((resolve) => (open = resolve));
    return { opened, open };
  };

  it('when the queue is full, then one more task is refused at once, and the queued ones still run', async () => {
    const slots = new Semaphore(1, { maxQueue: 2, maxWaitMs: 60_000 });
    const g = gate();
    const running = slots.run(() => g.opened);
    const queued = [slots.run(async () => 'a'), slots.run(async () => 'b')];
    await expect(slots.run(async () => 'c')).rejects.toBeInstanceOf(TaskRefused);
    g.open();
    await running;
    expect(await Promise.all(queued)).toEqual(['a', 'b']);
  });

  it('when a task waited past its deadline, then it is dropped unrun and the next one runs', async () => {
    const slots = new Semaphore(1, { maxQueue: 10, maxWaitMs: 20 });
    const g = gate();
    const running = slots.run(() => g.opened);
    let ran = false;
    const late = slots.run(async () => {
      ran = true;
    });
    await new Promise((r) => setTimeout(r, 40));
    g.open();
    await running;
    await expect(late).rejects.toThrow(/deadline/);
    expect(ran).toBe(false);
    expect(await slots.run(async () => 'next')).toBe('next');
  });

  it('when the caller went away while its task waited, then the task is dropped unrun', async () => {
    const slots = new Semaphore(1, { maxQueue: 10, maxWaitMs: 60_000 });
    const g = gate();
    const running = slots.run(() => g.opened);
    const controller = new AbortController();
    let ran = false;
    const abandoned = slots.run(async () => {
      ran = true;
    }, controller.signal);
    controller.abort();
    g.open();
    await running;
    await expect(abandoned).rejects.toThrow(/went away/);
    expect(ran).toBe(false);
    expect(slots.queued).toBe(0);
  });

  it('answers abandoned when the caller’s deadline passed while its hash waited: the domain’s 504, as the gateway does then', async () => {
    const hasher = new BcryptPasswordHasher(12, 1, { maxQueue: 10, maxWaitMs: 60_000 });
    const first = hasher.hash('first one');
    const controller = new AbortController();
    const waiting = hasher.hash('second one', controller.signal);
    controller.abort();
    const answer = await waiting;
    expect(answer).toEqual({ refused: 'abandoned' });
    expect(() => passwordWork(answer)).toThrow(expect.objectContaining({ httpStatus: 504, code: 'upstream_timeout' }));
    await first;
  }, 20_000);

  it('answers busy when its queue is full: the domain’s 503 with Retry-After', async () => {
    const hasher = new BcryptPasswordHasher(12, 1, { maxQueue: 1, maxWaitMs: 60_000 });
    const work = [hasher.hash('first one'), hasher.hash('second one')];
    const answer = await hasher.hash('third one');
    expect(answer).toEqual({ refused: 'busy' });
    expect(() => passwordWork(answer)).toThrow(expect.objectContaining({ httpStatus: 503, code: 'service_unavailable', retryAfterSeconds: 1 }));
    expect(passwordWork(await work[0])).toMatch(/^\$2b\$12\$/);
    await Promise.all(work);
  }, 20_000);
});

describe('Semaphore', () => {
  it('runs at most its limit at once, and every task in the end', async () => {
    const slots = new Semaphore(2);
    let running = 0;
    let most = 0;
    const task = async (i: number) => {
      running++;
      most = Math.max(most, running);
      await new Promise((r) => setTimeout(r, 5));
      running--;
      return i;
    };
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => slots.run(() => task(i))));
    expect(results).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(most).toBe(2);
  });

  it('frees its slot when a task fails', async () => {
    const slots = new Semaphore(1);
    await expect(slots.run(async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    await expect(slots.run(async () => 'next')).resolves.toBe('next');
  });
});

describe('BcryptPasswordHasher', () => {
  const hasher = new BcryptPasswordHasher(4, 1);

  it('verifies what it hashed, and nothing else', async () => {
    const hash = passwordWork(await hasher.hash('correct horse battery'));
    expect(await hasher.verify('correct horse battery', hash)).toBe(true);
    expect(await hasher.verify('correct horse batterY', hash)).toBe(false);
  });

  it('does not truncate at 72 bytes as bare bcrypt would', async () => {
    const long = 'x'.repeat(72);
    const hash = passwordWork(await hasher.hash(`${long}A`));
    expect(await hasher.verify(`${long}B`, hash)).toBe(false);
  });

  it('asks for an upgrade of a hash cheaper than its cost', async () => {
    expect(hasher.needsUpgrade(passwordWork(await new BcryptPasswordHasher(4).hash('whatever1')))).toBe(false);
    expect(new BcryptPasswordHasher(5).needsUpgrade(passwordWork(await hasher.hash('whatever1')))).toBe(true);
  });

  it('enforces 8 to 128 characters', () => {
    expect(() => assertPasswordPolicy('1234567')).toThrow('Password must be 8-128 characters');
    expect(() => assertPasswordPolicy('x'.repeat(129))).toThrow('Password must be 8-128 characters');
    expect(() => assertPasswordPolicy('12345678')).not.toThrow();
  });
});

describe('BcryptPasswordHasher.burn', () => {
  it('spends one bcrypt compare at the account cost, as a wrong password’s verify does (what the unknown-address login spends)', async () => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const bcrypt = require('bcrypt') as typeof import('bcrypt');
    const hasher = new BcryptPasswordHasher(4, 1, { maxQueue: 10, maxWaitMs: 60_000 });
    const stored = (await hasher.hash('the right password')) as string;
    const compare = jest.spyOn(bcrypt, 'compare');
    try {
      await hasher.burn('a guess');
      expect(compare).toHaveBeenCalledTimes(1);
      expect(bcrypt.getRounds(compare.mock.calls[0][1] as string)).toBe(4);
      compare.mockClear();
      expect(await hasher.verify('a guess', stored)).toBe(false);
      expect(compare).toHaveBeenCalledTimes(1);
    } finally {
      compare.mockRestore();
    }
  });
});
