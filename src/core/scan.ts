import { isCluster, mastersOf, waitForRedis, type RedisClient } from './redis.js';

/** How long a walk waits for a cluster connection that is still learning its slots. */
const CLUSTER_READY_MS = 2000;

/**
 * Every key matching `pattern`, a SCAN step (about `count` keys looked at) per batch, on every
 * master: SCAN walks one node's keyspace, so a Redis Cluster is walked node by node.
 */
export async function* scanKeys(
  redis: RedisClient,
  pattern: string,
  count: number,
  isStopping: () => boolean = () => false,
): AsyncGenerator<string[]> {
  if (isCluster(redis) && redis.status !== 'ready') await waitForRedis(redis, CLUSTER_READY_MS);
  for (const node of mastersOf(redis)) {
    let cursor = '0';
    do {
      if (isStopping()) return;
      const [next, keys] = await node.scan(cursor, 'MATCH', pattern, 'COUNT', count);
      cursor = next;
      if (keys.length > 0) yield keys;
    } while (cursor !== '0');
  }
}

/**
 * Unlinks `keys` one command per key, so keys of different Redis Cluster slots never share a
 * command (auto-pipelining still sends them together).
 */
export async function unlinkEach(redis: RedisClient, keys: string[]): Promise<void> {
  await Promise.all(keys.map((key) => redis.unlink(key)));
}
