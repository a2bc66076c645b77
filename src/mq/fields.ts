import { fail } from '../core/errors.js';
import { LIMITS } from './limits.js';

/** Queue names: 1 to 255 bytes, no '/', no control characters. */
export function checkQueueName(name: string, field = 'queue name'): string {
  if (name === '') throw fail('field_empty', field);
  if (Buffer.byteLength(name) > LIMITS.maxQueueNameBytes) throw fail('field_too_long', field, LIMITS.maxQueueNameBytes);
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f/]/.test(name)) throw fail('mq_queue_name_characters', field);
  return name;
}
