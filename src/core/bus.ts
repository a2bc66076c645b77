import type { Redis } from 'ioredis';

type Handler = (message: string) => void;

/**
 * One subscriber connection per process carrying every pub/sub channel Ferrum uses
 * (cache invalidation, long-poll wake-ups, cancel signals), so listeners cost no connections.
 */
export class EventBus {
  private readonly handlers = new Map<string, Set<Handler>>();

  constructor(
    private readonly subscriber: Redis,
    private readonly publisher: Redis,
  ) {
    subscriber.on('message', (channel: string, message: string) => {
      for (const handler of this.handlers.get(channel) ?? []) handler(message);
    });
  }

  async subscribe(channel: string, handler: Handler): Promise<() => Promise<void>> {
    let set = this.handlers.get(channel);
    if (!set) {
      set = new Set();
      this.handlers.set(channel, set);
      try {
        await this.subscriber.subscribe(channel);
      } catch (error) {
        // Redis unreachable: the next subscriber tries again.
        if (this.handlers.get(channel) === set && set.size === 0) this.handlers.delete(channel);
        throw error;
      }
    }
    set.add(handler);
    return async () => {
      set.delete(handler);
      if (set.size === 0 && this.handlers.get(channel) === set) {
        this.handlers.delete(channel);
        await this.subscriber.unsubscribe(channel);
      }
    };
  }

  async publish(channel: string, message: string): Promise<void> {
    await this.publisher.publish(channel, message);
  }

  async close(): Promise<void> {
    this.handlers.clear();
    this.subscriber.disconnect();
  }
}
