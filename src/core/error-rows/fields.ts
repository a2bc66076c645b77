import { row } from './row.js';

/**
 * The error table's field rows: what any field of any body may be refused for, each naming
 * the field. Schema failures (api/schema-errors.ts) answer with these, and so do the few checks
 * a schema cannot say (a length in bytes, a bound set by a setting); a domain has rows only for
 * its own rules.
 */
export const FIELD_ERRORS = {
  field_required: row(406, (field: string) => `${field} is required`),
  field_not_one_of: row(400, (field: string, allowed: string) => `${field} must be one of: ${allowed}`),
  field_invalid: row(400, (field: string, problem: string) => `${field} ${problem}`),
  field_not_an_object: row(400, (field: string) => `${field} must be an object`),
  field_not_an_integer: row(400, (field: string) => `${field} must be an integer`),
  field_not_a_string: row(400, (field: string) => `${field} must be a string`),
  field_not_a_list: row(400, (field: string) => `${field} must be a list`),
  field_empty: row(400, (field: string) => `${field} must not be empty`),
  field_out_of_range: row(
    400,
    (field: string, min: number, max: number) => `${field} must be between ${min} and ${max}`,
  ),
  field_too_small: row(400, (field: string, min: number) => `${field} must be at least ${min}`),
  field_too_long: row(400, (field: string, max: number) => `${field} must be at most ${max} bytes`),
  field_too_many_characters: row(400, (field: string, max: number) => `${field} must be at most ${max} characters`),
} as const;
