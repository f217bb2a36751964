import { LatestReleaseCache, type ReleaseRepository } from '../src/data-access/release-repository';

describe('LatestReleaseCache', () => {
  function fakeRepository(answers: Array<string | Error>) {
    const calls: string[] = [];
    const repo = {
      latest: async (platform: string) => {
        calls.push(platform);
        const next = answers.shift();
        if (next instanceof Error) throw next;
        return next ? ({ version: next } as never) : undefined;
      },
    } as unknown as ReleaseRepository;
    return { repo, calls };
  }

  it('reads once per platform within the time to live, and again after it', async () => {
    let now = 0;
    const { repo, calls } = fakeRepository(['1.0.0', '2.0.0', '1.1.0']);
    const cache = new LatestReleaseCache(repo, 1000, () => now);
    expect((await cache.latest('linux'))?.version).toBe('1.0.0');
    now = 999;
    expect((await cache.latest('linux'))?.version).toBe('1.0.0');
    expect((await cache.latest('win32'))?.version).toBe('2.0.0');
    now = 1000;
    expect((await cache.latest('linux'))?.version).toBe('1.1.0');
    expect(calls).toEqual(['linux', 'win32', 'linux']);
  });

  it('does not keep a failed read', async () => {
    const { repo, calls } = fakeRepository([new Error('store down'), '3.0.0']);
    const cache = new LatestReleaseCache(repo, 60_000, () => 0);
    await expect(cache.latest('darwin')).rejects.toThrow('store down');
    expect((await cache.latest('darwin'))?.version).toBe('3.0.0');
    expect(calls).toHaveLength(2);
  });
});
