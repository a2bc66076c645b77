import type { KeySpace, RedisClient } from '../core/redis.js';

/** Finished task states counted per minute. */
export const OUTCOMES = ['complete', 'error', 'timeout', 'cancelled'] as const;
export type Outcome = (typeof OUTCOMES)[number];

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;

export interface QueueDepthSample {
  time: number;
  total: number;
  /** The deepest queues at that moment, by name. */
  queues: Record<string, number>;
}

export interface TaskOutcomeBucket {
  time: number;
  counts: Record<Outcome, number>;
}

/**
 * The last hour of a project's activity, for the dashboard's charts: task outcomes counted per
 * minute, and queue depth as sampled by the history sampler. Every key expires on its own, so a
 * project that goes quiet costs nothing after an hour.
 */
export class ActivityHistory {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: KeySpace,
  ) {}

  private outcomeKey(projectId: string, minute: number): string {
    return this.keys.of('history', projectId, 'tasks', String(minute));
  }

  private depthKey(projectId: string): string {
    return this.keys.of('history', projectId, 'queue-depth');
  }

  async recordTaskOutcome(projectId: string, outcome: Outcome, atMs = Date.now()): Promise<void> {
    const minute = Math.floor(atMs / MINUTE_MS) * MINUTE_MS;
    const key = this.outcomeKey(projectId, minute);
    await this.redis
      .multi()
      .hincrby(key, outcome, 1)
      .pexpire(key, HOUR_MS + 2 * MINUTE_MS)
      .exec();
  }

  async recordQueueDepth(projectId: string, sample: QueueDepthSample): Promise<void> {
    const key = this.depthKey(projectId);
    await this.redis
      .multi()
      .zadd(key, sample.time, JSON.stringify(sample))
      .zremrangebyscore(key, '-inf', `(${sample.time - HOUR_MS}`)
      .pexpire(key, HOUR_MS)
      .exec();
  }

  /** Sixty one-minute buckets ending at the current minute, oldest first, zeros included. */
  async taskOutcomes(projectId: string, nowMs = Date.now()): Promise<TaskOutcomeBucket[]> {
    const last = Math.floor(nowMs / MINUTE_MS) * MINUTE_MS;
    const minutes = Array.from({ length: 60 }, (_, i) => last - (59 - i) * MINUTE_MS);
    const hashes = await Promise.all(minutes.map((minute) => this.redis.hgetall(this.outcomeKey(projectId, minute))));
    return minutes.map((time, i) => ({
      time,
      counts: Object.fromEntries(OUTCOMES.map((outcome) => [outcome, Number(hashes[i]?.[outcome] ?? 0)])) as Record<
        Outcome,
        number
      >,
    }));
  }

  async queueDepth(projectId: string, nowMs = Date.now()): Promise<QueueDepthSample[]> {
    const raw = await this.redis.zrangebyscore(this.depthKey(projectId), nowMs - HOUR_MS, '+inf');
    return raw.map((entry) => JSON.parse(entry) as QueueDepthSample);
  }
}
