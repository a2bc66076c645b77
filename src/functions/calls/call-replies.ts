import type { EventBus } from '../../core/bus.js';
import { newObjectId } from '../../core/ids.js';
import type { CallReply } from './call-message.js';
import type { FunctionKeys } from '../keys.js';
import type { ReplyBodies } from './reply-bodies.js';

export interface ReplyWait {
  /** The reply, or null when none came within the time given. */
  reply: Promise<CallReply | null>;
  cancel(): void;
}

/**
 * The results of this process's sync calls: one pub/sub channel per process, subscribed
 * once, so a call costs no SUBSCRIBE; waiters are matched by call id.
 */
export class CallReplies {
  private readonly waiting = new Map<string, (reply: CallReply | null) => void>();
  private unsubscribe: (() => Promise<void>) | null = null;
  readonly channel: string;

  constructor(
    private readonly bus: EventBus,
    keys: FunctionKeys,
    private readonly bodies: ReplyBodies,
  ) {
    this.channel = keys.replyChannel(newObjectId());
  }

  async start(): Promise<void> {
    this.unsubscribe = await this.bus.subscribe(this.channel, (raw) => void this.deliver(raw));
  }

  private async deliver(raw: string): Promise<void> {
    try {
      const reply = await this.bodies.reply(raw);
      this.waiting.get(reply.callId)?.(reply);
    } catch {
      // Redis failed while taking a stored body: the waiter times out as for a lost reply.
    }
  }

  /** Call before the call is queued, so a fast reply is not missed. */
  expect(callId: string, timeoutMs: number): ReplyWait {
    let settle: (reply: CallReply | null) => void = () => {};
    const reply = new Promise<CallReply | null>((resolve) => {
      const timer = setTimeout(() => settle(null), timeoutMs);
      settle = (value) => {
        clearTimeout(timer);
        this.waiting.delete(callId);
        resolve(value);
      };
    });
    this.waiting.set(callId, settle);
    return { reply, cancel: () => settle(null) };
  }

  async close(): Promise<void> {
    for (const settle of [...this.waiting.values()]) settle(null);
    await this.unsubscribe?.();
  }
}
