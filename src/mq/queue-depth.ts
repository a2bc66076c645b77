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
 * Offers every queue of `projectId` with its size to `top`: one pipelined ZCARD round trip per
 * page of queue names, no scripts (expired messages not yet swept still count).
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
    const pipeline = redis.pipeline();
    const refs = names.map((name) => ({ projectId, name }));
    for (const ref of refs) for (const key of keys.sizeKeys(ref)) pipeline.zcard(key);
    const replies = (await pipeline.exec()) ?? [];
    refs.forEach((ref, i) => {
      const size = [0, 1, 2].reduce((sum, part) => sum + Number(replies[i * 3 + part]?.[1] ?? 0), 0);
      top.offer(ref, size);
    });
    if (names.length < PAGE) return;
    from = `(${names[names.length - 1]}`;
  }
}

/**
 * For each queue, when the message at the head of its ready set (the next to be reserved) was
 * posted, in epoch ms, or null when nothing is ready: one pipelined round trip.
 */
export async function oldestReadyMessages(
  redis: RedisClient,
  keys: MqKeys,
  refs: QueueRef[],
): Promise<Array<number | null>> {
  if (refs.length === 0) return [];
  const pipeline = redis.pipeline();
  for (const ref of refs) pipeline.zrange(keys.sizeKeys(ref)[0]!, 0, 0);
  const replies = (await pipeline.exec()) ?? [];
  return replies.map(([, head]) => {
    const id = (head as string[] | undefined)?.[0];
    return id && isMessageId(id) ? messageIdTime(id) : null;
  });
}
