import { badRequest, notAcceptable } from '../core/errors.js';
import { EVERY_FIELD_OPTIONAL, dropNullFields } from '../core/null-fields.js';
import { LIMITS } from './limits.js';

/** Small checks of client-supplied values; each error names the field. */

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** An object of a body read by hand; its null fields are not given (null-fields.ts), so a required one answers 406. */
export function objectField(value: unknown, field: string): Record<string, unknown> {
  if (!isPlainObject(value)) throw badRequest(`${field} must be an object`);
  return dropNullFields(value, EVERY_FIELD_OPTIONAL);
}

export function integerField(
  value: unknown,
  field: string,
  min: number,
  max: number = Number.MAX_SAFE_INTEGER,
): number {
  if (typeof value !== 'number' || !Number.isInteger(value)) throw badRequest(`${field} must be an integer`);
  if (value < min || value > max) {
    throw badRequest(
      max === Number.MAX_SAFE_INTEGER
        ? `${field} must be at least ${min}`
        : `${field} must be between ${min} and ${max}`,
    );
  }
  return value;
}

export function stringField(value: unknown, field: string): string {
  if (typeof value !== 'string') throw badRequest(`${field} must be a string`);
  return value;
}

export function requiredField(value: unknown, field: string): unknown {
  if (value === undefined || value === null) throw notAcceptable(`${field} is required`);
  return value;
}

/** Queue names: 1 to 255 bytes, no '/', no control characters. */
export function checkQueueName(name: string, field = 'queue name'): string {
  if (name === '') throw badRequest(`${field} must not be empty`);
  if (Buffer.byteLength(name) > LIMITS.maxQueueNameBytes)
    throw badRequest(`${field} must be at most ${LIMITS.maxQueueNameBytes} bytes`);
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f/]/.test(name)) throw badRequest(`${field} must not contain '/' or control characters`);
  return name;
}
