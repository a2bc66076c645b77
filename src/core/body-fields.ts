import { fail } from './errors.js';

/**
 * The checks of a body's fields where a body is read by hand (JSON in a form field) or a rule
 * depends on the route (which subscriber fields are required): each refusal is a FIELD_ERRORS
 * row naming the field, the same rows schema failures answer with (api/schema-errors.ts).
 */

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
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

export function requiredField(value: unknown, field: string): unknown {
  if (value === undefined || value === null) throw fail('field_required', field);
  return value;
}
