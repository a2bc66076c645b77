import type { RedisClient } from '../core/redis.js';
import { isMessageId, messageIdTime } from '../core/ids.js';
import { TopN } from '../metrics/top-n.js';
import type { MqKeys, QueueRef } from './keys.js';

const PAGE = 500;

/** A queue and its size (available + delayed + reserved messages). */
export interface QueueDepth {
  ref: QueueRef;
  size: number;
}

/**
 * Offers every queue of `projectId` with its size to `top`: one auto-pipelined round of ZCARDs
 * per page of queue names, no scripts (expired messages not yet swept still count).
 */
export async function offerQueueDepths(
  redis: RedisClient,
  keys: MqKeys,
  projectId: string,
  top: TopN<QueueRef>,
): Promise<void> {
  let from = '-';
  for (;;) {
    const names = await redis.zrangebylex(keys.queueIndex(projectId), from, '+', 'LIMIT', 0, PAGE);
    if (names.length === 0) return;
    const refs = names.map((name) => ({ projectId, name }));
    // Each queue has a slot of its own on a Redis Cluster: separate (auto-pipelined) commands,
    // not one ioredis pipeline, which must stay within one node's slots.
    const sizes = await Promise.all(
      refs.map(async (ref) =>
        (await Promise.all(keys.sizeKeys(ref).map((key) => redis.zcard(key)))).reduce((a, b) => a + b, 0),
      ),
    );
    refs.forEach((ref, i) => top.offer(ref, sizes[i]!));
    if (names.length < PAGE) return;
    from = `(${names[names.length - 1]}`;
  }
}

/**
 * For each queue, when the message at the head of its ready set (the next to be reserved) was
 * posted, in epoch ms, or null when nothing is ready: one auto-pipelined round of commands.
 */
export async function oldestReadyMessages(
  redis: RedisClient,
  keys: MqKeys,
  refs: QueueRef[],
): Promise<Array<number | null>> {
  if (refs.length === 0) return [];
  const heads = await Promise.all(refs.map((ref) => redis.zrange(keys.sizeKeys(ref)[0]!, 0, 0)));
  return heads.map((head) => {
    const id = head[0];
    return id && isMessageId(id) ? messageIdTime(id) : null;
  });
}
