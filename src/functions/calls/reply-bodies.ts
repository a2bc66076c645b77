import type { RedisClient } from '../../core/redis.js';
import { decodeCallReply, encodeCallReply, type CallReply } from './call-message.js';
import type { FunctionResult } from './function-executor.js';
import type { FunctionKeys } from '../keys.js';

/** Bodies up to this size travel inside the pub/sub notice; larger ones are stored apart. */
export const INLINE_REPLY_BYTES = 16 * 1024;
/** How long a stored body waits for its controller to take it. */
const STORED_BODY_TTL_MS = 60_000;

/**
 * How a sync call's answer travels from the runner to the waiting controller: a small notice on
 * pub/sub, and a body too large for it in a key of its own, kept briefly and taken once (pub/sub
 * messages sit in the shared subscriber connection's output buffer; Redis closes a connection
 * whose buffer overflows, and every listener of the process would lose its notices).
 */
export class ReplyBodies {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: FunctionKeys,
  ) {}

  /** The notice to publish for the call's result, its body stored first when large. */
  async notice(callId: string, result: FunctionResult): Promise<string> {
    if (result.body.length <= INLINE_REPLY_BYTES) return encodeCallReply(callId, result);
    const bodyKey = this.keys.replyBody(callId);
    await this.redis.set(bodyKey, result.body, 'PX', STORED_BODY_TTL_MS);
    return encodeCallReply(callId, result, bodyKey);
  }

  /** The reply a notice stands for, its stored body taken (and deleted). */
  async reply(raw: string): Promise<CallReply> {
    const { body, bodyKey, ...reply } = decodeCallReply(raw);
    if (body) return { ...reply, body };
    const stored = bodyKey ? await this.redis.getdelBuffer(bodyKey) : null;
    if (stored) return { ...reply, body: stored };
    return {
      ...reply,
      outcome: 'error',
      status: 502,
      headers: {},
      body: Buffer.alloc(0),
      errorMessage: "The function's answer was lost on its way back",
    };
  }
}
