// `npm run test:ha`'s setup: a Redis Cluster (3 masters, 3 replicas) and a 3-node RabbitMQ cluster
// on loopback ports, as REDIS_URL and AMQP_URL for every test and stack of the run; then the usual
// setup (MongoDB: the stand-in, or MONGO_URL). Never the machine's own Redis or RabbitMQ.
import { startRabbitCluster, type RabbitCluster } from '@acct/test-harness/rabbitmq-servers';
import { startRedisCluster, type RedisClusterServers } from '@acct/test-harness/redis-servers';
import type { Config } from '@jest/types';
import globalSetup from '../setup/global-setup';

export default async function haGlobalSetup(globalConfig: Config.GlobalConfig): Promise<void> {
  const started = Date.now();
  process.stdout.write('\ntest:ha: starting a 6-node Redis Cluster and a 3-node RabbitMQ cluster …\n');
  const [redisStart, rabbitStart] = await Promise.allSettled([startRedisCluster(), startRabbitCluster()]);
  if (redisStart.status === 'rejected' || rabbitStart.status === 'rejected') {
    // Whichever came up is stopped before the run ends: nothing of a failed start is left running.
    await Promise.all([redisStart, rabbitStart].map((s) => (s.status === 'fulfilled' ? s.value.stop() : undefined)));
    throw [redisStart, rabbitStart].map((s) => (s.status === 'rejected' ? s.reason : undefined)).find(Boolean);
  }
  const [redis, rabbit] = [redisStart.value, rabbitStart.value];
  (globalThis as Record<string, unknown>).__ACCT_HA__ = { redis, rabbit };
  process.env.REDIS_URL = redis.url;
  process.env.AMQP_URL = rabbit.url;
  process.stdout.write(`test:ha: up in ${((Date.now() - started) / 1000).toFixed(1)} s: Redis Cluster ${redis.url}; RabbitMQ nodes ${rabbit.nodes.map((n) => `${n.name} (${n.port})`).join(', ')}\n`);
  await globalSetup(globalConfig);
}

export type HaEngines = { redis: RedisClusterServers; rabbit: RabbitCluster };
