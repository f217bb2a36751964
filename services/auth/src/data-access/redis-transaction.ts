// Runs a MULTI/EXEC and throws on any failed command, which ioredis otherwise reports only in place.
import type { ChainableCommander } from 'ioredis';

export async function execOrThrow(multi: ChainableCommander): Promise<void> {
  const results = await multi.exec();
  const failed = results?.find(([err]) => err);
  if (!results || failed) throw failed?.[0] ?? new Error('Redis transaction aborted');
}
