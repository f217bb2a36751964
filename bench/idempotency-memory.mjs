// What the notifier's duplicate check costs in Redis per handled event, for the layouts it could
// keep: today's (SET <prefix>event:<uuid> done EX <ttl>) and a compact one (the UUID's 16 bytes as
// base64url, value 1). Writes N keys of each under a prefix of its own into REDIS_URL (default the
// local server), reads used_memory before and after, and deletes them.
//   node bench/idempotency-memory.mjs [N]
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const Redis = require('ioredis');
const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
const N = Number(process.argv[2] ?? 100_000);
const used = async () => Number(/used_memory:(\d+)/.exec(await redis.info('memory'))[1]);
const compact = (uuid) => Buffer.from(uuid.replace(/-/g, ''), 'hex').toString('base64url');

const layouts = {
  'today: SET acct-xxxxxxxx:notifier:event:<uuid> done EX': (prefix) => [`${prefix}acct-12345678:notifier:event:${randomUUID()}`, 'done'],
  'compact: SET acct-xxxxxxxx:notifier:e:<base64url 16 bytes> 1 EX': (prefix) => [`${prefix}acct-12345678:notifier:e:${compact(randomUUID())}`, '1'],
};

async function clear(prefix) {
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 5000);
    cursor = next;
    if (keys.length) await redis.del(...keys);
  } while (cursor !== '0');
}

console.log(`node bench/idempotency-memory.mjs ${N} (redis ${(/redis_version:(\S+)/.exec(await redis.info('server')) ?? [])[1]})`);
for (const [name, make] of Object.entries(layouts)) {
  const prefix = `idem-bench-${process.pid}-`;
  const before = await used();
  for (let i = 0; i < N; i += 1000) {
    const batch = redis.pipeline();
    for (let j = 0; j < 1000; j++) batch.set(...make(prefix), 'EX', 3600);
    await batch.exec();
  }
  const after = await used();
  console.log(`${name}: ${((after - before) / N).toFixed(1)} bytes an event`);
  await clear(prefix);
}
redis.disconnect();
