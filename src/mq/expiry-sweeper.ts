import type { Redis } from 'ioredis';
import { Lease } from '../core/lease.js';
import type { KeySpace } from '../core/redis.js';
import type { MqLogger } from './dead-letters.js';
import type { MqKeys } from './keys.js';
import { scripts } from './scripts.js';

const SCAN_COUNT = 200;

/**
 * A leader-elected loop that runs maintenance over every queue, so expired messages of queues
 * nobody reserves from or looks at do not stay in memory forever. Requests do the same work
 * lazily on the queues they touch; this only covers the idle ones.
 */
export class ExpirySweeper {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private readonly lease: Lease;

  constructor(
    private readonly redis: Redis,
    private readonly keySpace: KeySpace,
    private readonly keys: MqKeys,
    private readonly intervalMs: number,
    private readonly log: MqLogger,
  ) {
    this.lease = new Lease(redis, keySpace.of('lease', 'mq-sweeper'), Math.max(intervalMs * 3, 10_000));
  }

  start(): void {
    if (this.timer || this.intervalMs <= 0) return;
    this.timer = setInterval(() => {
      if (!this.running) this.running = this.tick().finally(() => (this.running = null));
    }, this.intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
    await this.lease.release().catch(() => undefined);
  }

  private async tick(): Promise<void> {
    try {
      if (await this.lease.tryAcquire()) await this.sweepAll();
    } catch (error) {
      this.log.warn({ err: error }, 'message queue sweep failed');
    }
  }

  /** One pass over every queue of every project. */
  async sweepAll(): Promise<number> {
    let swept = 0;
    const pattern = this.keySpace.of('{mq:*}', 'queues');
    let cursor = '0';
    do {
      const [next, indexes] = await this.redis.scan(cursor, 'MATCH', pattern, 'COUNT', SCAN_COUNT);
      cursor = next;
      for (const index of indexes) swept += await this.sweepProject(index);
    } while (cursor !== '0' && this.timer !== null);
    return swept;
  }

  private async sweepProject(index: string): Promise<number> {
    const projectId = /\{mq:(.*)\}:queues$/.exec(index)?.[1];
    if (projectId === undefined) return 0;
    let swept = 0;
    let cursor = '0';
    do {
      const [next, entries] = await this.redis.zscan(index, cursor, 'COUNT', SCAN_COUNT);
      cursor = next;
      for (let i = 0; i < entries.length; i += 2) {
        await scripts.sweep.run(this.redis, this.keys.queue({ projectId, name: entries[i]! }));
        swept += 1;
      }
    } while (cursor !== '0');
    return swept;
  }
}
