import { assertPasswordPolicy } from '../src/domain/passwords';
import { BcryptPasswordHasher, Semaphore } from '../src/security/password-hasher';

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
    const hash = await hasher.hash('correct horse battery');
    expect(await hasher.verify('correct horse battery', hash)).toBe(true);
    expect(await hasher.verify('correct horse batterY', hash)).toBe(false);
  });

  it('does not truncate at 72 bytes as bare bcrypt would', async () => {
    const long = 'x'.repeat(72);
    const hash = await hasher.hash(`${long}A`);
    expect(await hasher.verify(`${long}B`, hash)).toBe(false);
  });

  it('asks for an upgrade of a hash cheaper than its cost', async () => {
    expect(hasher.needsUpgrade(await new BcryptPasswordHasher(4).hash('whatever1'))).toBe(false);
    expect(new BcryptPasswordHasher(5).needsUpgrade(await hasher.hash('whatever1'))).toBe(true);
  });

  it('enforces 8 to 128 characters', () => {
    expect(() => assertPasswordPolicy('1234567')).toThrow('Password must be 8-128 characters');
    expect(() => assertPasswordPolicy('x'.repeat(129))).toThrow('Password must be 8-128 characters');
    expect(() => assertPasswordPolicy('12345678')).not.toThrow();
  });
});
