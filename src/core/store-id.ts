import { createHash } from 'node:crypto';

/** Names this Ferrum installation (Redis + prefix) in container labels and cloud tags, without secrets. */
export function storeIdOf(redisUrl: string, keyPrefix: string): string {
  return createHash('sha256').update(`${redisUrl}|${keyPrefix}`).digest('hex').slice(0, 16);
}
