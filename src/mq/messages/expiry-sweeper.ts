import { LeaderLoop } from '../../core/leader-loop.js';
import type { KeySpace, RedisClient } from '../../core/redis.js';
import { scanKeys } from '../../core/scan.js';
import type { MqLogger } from '../types.js';
import { type MqKeys, scripts } from '../scripts.js';

const SCAN_COUNT = 200;

/**
 * Runs maintenance over every queue, so expired messages of queues nobody reserves from or looks
 * at do not stay in memory forever. Requests do the same work lazily on the queues they touch;
 * this only covers the idle ones. The leader controller runs it (see MessageQueue).
 */
export class ExpirySweeper {
  readonly loop: LeaderLoop;
  private isStopping: () => boolean = () => false;

  constructor(
    private readonly redis: RedisClient,
    private readonly keySpace: KeySpace,
    private readonly keys: MqKeys,
    intervalMs: number,
    log: MqLogger,
    private readonly onExpired: (count: number) => void = () => {},
  ) {
    this.loop = new LeaderLoop({
      redis,
      keys: keySpace,
      name: 'mq-sweeper',
      intervalMs,
      log,
      work: async (isStopping) => {
        this.isStopping = isStopping;
        await this.sweepAll();
      },
    });
  }

  start(): void {
    this.loop.start();
  }

  async stop(): Promise<void> {
    await this.loop.stop();
  }

  /** One pass over every queue of every project. */
  async sweepAll(): Promise<number> {
    let swept = 0;
    const pattern = this.keySpace.of('{mq:*}', 'queues');
    for await (const indexes of scanKeys(this.redis, pattern, SCAN_COUNT, this.isStopping)) {
      for (const index of indexes) swept += await this.sweepProject(index);
    }
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
        const expired = await scripts.sweep.run<number>(this.redis, this.keys.queue({ projectId, name: entries[i]! }));
        if (expired > 0) this.onExpired(expired);
        swept += 1;
      }
    } while (cursor !== '0');
    return swept;
  }
}
