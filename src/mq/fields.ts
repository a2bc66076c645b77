import { fail } from '../core/errors.js';
import { EVERY_FIELD_OPTIONAL, dropNullFields } from '../core/null-fields.js';
import { LIMITS } from './limits.js';

/** Small checks of client-supplied values; each error names the field. */

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** An object of a body read by hand; its null fields are not given (null-fields.ts), so a required one answers 406. */
export function objectField(value: unknown, field: string): Record<string, unknown> {
  if (!isPlainObject(value)) throw fail('mq_not_an_object', field);
  return dropNullFields(value, EVERY_FIELD_OPTIONAL);
}

export function integerField(
  value: unknown,
  field: string,
  min: number,
  max: number = Number.MAX_SAFE_INTEGER,
): number {
  if (typeof value !== 'number' || !Number.isInteger(value)) throw fail('mq_not_an_integer', field);
  if (value < min || value > max) {
    throw max === Number.MAX_SAFE_INTEGER ? fail('mq_too_small', field, min) : fail('mq_out_of_range', field, min, max);
  }
  return value;
}

export function stringField(value: unknown, field: string): string {
  if (typeof value !== 'string') throw fail('mq_not_a_string', field);
  return value;
}

export function requiredField(value: unknown, field: string): unknown {
  if (value === undefined || value === null) throw fail('mq_field_required', field);
  return value;
}

/** Queue names: 1 to 255 bytes, no '/', no control characters. */
export function checkQueueName(name: string, field = 'queue name'): string {
  if (name === '') throw fail('mq_field_empty', field);
  if (Buffer.byteLength(name) > LIMITS.maxQueueNameBytes)
    throw fail('mq_queue_name_too_long', field, LIMITS.maxQueueNameBytes);
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f/]/.test(name)) throw fail('mq_queue_name_characters', field);
  return name;
}
