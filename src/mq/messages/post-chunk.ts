import { execTransaction } from '../../core/lua.js';
import type { RedisClient } from '../../core/redis.js';
import { QUEUE_KEY_PARTS, scripts } from '../scripts.js';
import { postArgs, type PostRow } from './script-io.js';

/** From this many bytes of bodies, a chunk's bodies go to Redis beside post-messages.lua, not through it. */
const APART_BODY_BYTES = 64 * 1024;

const BODY_KEY = QUEUE_KEY_PARTS.indexOf('body');

/** post-messages.lua's reply: queue created (0/1), messages inserted (-1: refused), fired alerts (JSON). */
export type PostReply = [number, number, string];

/** What post-messages.lua takes besides the chunk: its first six arguments, the plain flag, whether the ids are fresh. */
export interface ChunkArgs {
  head: Array<string | number>;
  plain: string;
  fresh: boolean;
}

/**
 * Writes one chunk of a post by post-messages.lua. A chunk of fresh ids whose bodies add up to
 * APART_BODY_BYTES or more is one MULTI: an HSET of the bodies into the queue's body hash, then
 * the script given their lengths only, which takes them out again when it refuses the post. Redis
 * copies each body once, into the hash. Through the script, Lua hashed every byte twice (the joined
 * argument, then each body cut from it: about 1.5 ms a MiB each) and copied it three times more,
 * while every other tenant's command waited.
 */
export async function postChunk(
  redis: RedisClient,
  keys: string[],
  chunk: PostRow[],
  args: ChunkArgs,
): Promise<PostReply> {
  const bodyBytes = chunk.reduce((sum, row) => sum + Buffer.byteLength(row[1]), 0);
  if (!args.fresh || bodyBytes < APART_BODY_BYTES) {
    return scripts.postMessages.run<PostReply>(redis, keys, [...args.head, ...postArgs(chunk), args.plain]);
  }
  const transaction = redis.multi();
  transaction.hset(keys[BODY_KEY]!, ...chunk.flatMap((row) => [row[0], row[1]]));
  scripts.postMessages.queueIn(transaction, keys, [...args.head, ...postArgs(chunk, 'apart'), args.plain, '1']);
  const [, reply] = await execTransaction(transaction);
  return reply as PostReply;
}
