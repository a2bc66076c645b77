import { createHash } from 'node:crypto';

/** The version 1 id of a subscriber (v1 paths carry ids; subscribers are stored by name). */
export function subscriberIdOf(name: string): string {
  return createHash('sha1').update(name).digest('hex').slice(0, 24);
}
