import type { RedisClient } from '../../core/redis.js';
import { isMessageId, messageIdTime } from '../../core/ids.js';
import { TopN } from '../../metrics/top-n.js';
import type { MqKeys, QueueRef } from '../scripts.js';

const PAGE = 500;

/** One queue as the metrics sampler saw it. */
export interface SampledQueue {
  ref: QueueRef;
  /** When the next message to be reserved was posted (epoch ms); null when nothing is ready. */
  oldestReadyAt: number | null;
}

/** Every queue's messages summed by state, and the longest-waiting ready message over all of them. */
export interface QueueTotals {
  queues: number;
  ready: number;
  delayed: number;
  reserved: number;
  /** When the oldest ready message of any queue was posted (epoch ms); null when none is ready. */
  oldestReadyAt: number | null;
}

export function emptyQueueTotals(): QueueTotals {
  return { queues: 0, ready: 0, delayed: 0, reserved: 0, oldestReadyAt: null };
}

/** When the message at the head of a ready set was posted (its id says), or null. */
function postedAt(head: string[]): number | null {
  const id = head[0];
  return id && isMessageId(id) ? messageIdTime(id) : null;
}

/**
 * Adds every queue of `projectId` to `totals` and offers it, by size, to `top`. A page of queue
 * names costs one round of four constant-time commands per queue (three ZCARDs and the ready
 * set's head), auto-pipelined; pages follow one another, so a pass's cost grows with the number
 * of queues but no single command or script does (expired messages not yet swept still count).
 */
export async function sampleProjectQueues(
  redis: RedisClient,
  keys: MqKeys,
  projectId: string,
  totals: QueueTotals,
  top: TopN<SampledQueue>,
): Promise<void> {
  let from = '-';
  for (;;) {
    const names = await redis.zrangebylex(keys.queueIndex(projectId), from, '+', 'LIMIT', 0, PAGE);
    if (names.length === 0) return;
    // Each queue has a slot of its own on a Redis Cluster: separate (auto-pipelined) commands,
    // not one ioredis pipeline, which must stay within one node's slots.
    const sampled = await Promise.all(
      names.map(async (name) => {
        const ref = { projectId, name };
        const [ready, delayed, reserved] = keys.sizeKeys(ref) as [string, string, string];
        const [sizes, head] = await Promise.all([
          Promise.all([redis.zcard(ready), redis.zcard(delayed), redis.zcard(reserved)]),
          redis.zrange(ready, 0, 0),
        ]);
        return { ref, sizes, oldestReadyAt: postedAt(head) };
      }),
    );
    for (const { ref, sizes, oldestReadyAt } of sampled) {
      totals.queues += 1;
      totals.ready += sizes[0];
      totals.delayed += sizes[1];
      totals.reserved += sizes[2];
      if (oldestReadyAt !== null && (totals.oldestReadyAt === null || oldestReadyAt < totals.oldestReadyAt)) {
        totals.oldestReadyAt = oldestReadyAt;
      }
      top.offer({ ref, oldestReadyAt }, sizes[0] + sizes[1] + sizes[2]);
    }
    if (names.length < PAGE) return;
    from = `(${names[names.length - 1]}`;
  }
}
