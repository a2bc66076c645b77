import type { RedisClient } from './redis.js';

type Handler = (message: string) => void;

interface Channel {
  handlers: Set<Handler>;
  /** Settles when Redis confirmed the SUBSCRIBE (or refused it). */
  subscribed: Promise<void>;
}

/**
 * One subscriber connection per process carrying every pub/sub channel Ferrum uses
 * (cache invalidation, long-poll wake-ups, cancel signals), so listeners cost no connections.
 */
export class EventBus {
  private readonly channels = new Map<string, Channel>();

  constructor(
    private readonly subscriber: RedisClient,
    private readonly publisher: RedisClient,
  ) {
    subscriber.on('message', (channel: string, message: string) => {
      for (const handler of this.channels.get(channel)?.handlers ?? []) handler(message);
    });
  }

  /**
   * Resolves once messages published on `channel` reach `handler`: a second listener of a
   * channel whose SUBSCRIBE is still on its way waits for it too.
   */
  async subscribe(channel: string, handler: Handler): Promise<() => Promise<void>> {
    const entry = this.channels.get(channel) ?? this.open(channel);
    entry.handlers.add(handler);
    try {
      await entry.subscribed;
    } catch (error) {
      entry.handlers.delete(handler);
      throw error;
    }
    return async () => {
      entry.handlers.delete(handler);
      if (entry.handlers.size === 0 && this.channels.get(channel) === entry) {
        this.channels.delete(channel);
        await this.subscriber.unsubscribe(channel);
      }
    };
  }

  private open(channel: string): Channel {
    const entry: Channel = {
      handlers: new Set(),
      subscribed: this.subscriber.subscribe(channel).then(() => undefined),
    };
    this.channels.set(channel, entry);
    // Redis unreachable: forget the channel so that the next listener subscribes again.
    entry.subscribed.catch(() => {
      if (this.channels.get(channel) === entry) this.channels.delete(channel);
    });
    return entry;
  }

  async publish(channel: string, message: string): Promise<void> {
    await this.publisher.publish(channel, message);
  }

  async close(): Promise<void> {
    this.channels.clear();
    this.subscriber.disconnect();
  }
}
