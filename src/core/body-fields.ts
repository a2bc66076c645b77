import { fail } from './errors.js';
import { EVERY_FIELD_OPTIONAL, dropNullFields } from './null-fields.js';

/**
 * The checks of a body's fields where a body is read by hand (JSON in a form field, a body
 * whose shape depends on its queue's type): each refusal is a FIELD_ERRORS row naming the field,
 * the same rows schema failures answer with.
 */

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** An object of a body read by hand; its null fields are not given (null-fields.ts), so a required one answers 406. */
export function objectField(value: unknown, field: string): Record<string, unknown> {
  if (!isPlainObject(value)) throw fail('field_not_an_object', field);
  return dropNullFields(value, EVERY_FIELD_OPTIONAL);
}

export function integerField(
  value: unknown,
  field: string,
  min: number,
  max: number = Number.MAX_SAFE_INTEGER,
): number {
  if (typeof value !== 'number' || !Number.isInteger(value)) throw fail('field_not_an_integer', field);
  if (value < min || value > max) {
    throw max === Number.MAX_SAFE_INTEGER
      ? fail('field_too_small', field, min)
      : fail('field_out_of_range', field, min, max);
  }
  return value;
}

export function stringField(value: unknown, field: string): string {
  if (typeof value !== 'string') throw fail('field_not_a_string', field);
  return value;
}

export function listField(value: unknown, field: string): unknown[] {
  if (!Array.isArray(value)) throw fail('field_not_a_list', field);
  return value;
}

export function requiredField(value: unknown, field: string): unknown {
  if (value === undefined || value === null) throw fail('field_required', field);
  return value;
}
