import type { ErrorObject } from 'ajv';
import { fail, type HttpError } from '../src/core/errors.js';

/** How an API names a field in a schema failure, and what status a missing field answers. */
export interface SchemaErrorStyle {
  /** `tags[0].key` (iron APIs) or `tags.0.key` (the functions API). */
  indexes: 'brackets' | 'dots';
  /** 406 (iron APIs) or 400 (the functions API). */
  missingField: 'field_required' | 'fn_field_required';
}

function pathOf(error: ErrorObject, indexes: SchemaErrorStyle['indexes']): string {
  const parts = error.instancePath.split('/').filter(Boolean);
  if (indexes === 'dots') return parts.join('.');
  return parts
    .map((part) => (/^\d+$/.test(part) ? `[${part}]` : `.${part}`))
    .join('')
    .replace(/^\./, '');
}

/** The field a schema failure is about: its path, the missing property for `required`, or the request part. */
function fieldOf(error: ErrorObject, context: string, indexes: SchemaErrorStyle['indexes']): string {
  const path = pathOf(error, indexes);
  const missing = error.keyword === 'required' ? (error.params as { missingProperty: string }).missingProperty : '';
  return [path, missing].filter(Boolean).join('.') || context;
}

/** The field rows a wrong JSON type answers with (the types without a row keep Ajv's wording). */
const TYPE_ROWS = {
  integer: 'field_not_an_integer',
  string: 'field_not_a_string',
  object: 'field_not_an_object',
  array: 'field_not_a_list',
} as const;

/** A number below `minimum` or above `maximum`: both bounds named when the schema has both. */
function rangeError(error: ErrorObject, field: string): HttpError | null {
  const bounds = (error.parentSchema ?? {}) as { minimum?: number; maximum?: number };
  if (bounds.minimum !== undefined && bounds.maximum !== undefined)
    return fail('field_out_of_range', field, bounds.minimum, bounds.maximum);
  if (error.keyword === 'minimum') return fail('field_too_small', field, (error.params as { limit: number }).limit);
  return null;
}

/**
 * A schema failure as the error it answers, naming the field (the first failure only): the one
 * place Ajv's failures become the FIELD_ERRORS rows that bodies read by hand answered with too.
 */
export function schemaError(errors: ErrorObject[], context: string, style: SchemaErrorStyle): HttpError {
  const first = errors[0];
  if (!first) return fail('invalid_request_part', context);
  const field = fieldOf(first, context, style.indexes);
  if (first.keyword === 'required') return fail(style.missingField, field);
  if (first.keyword === 'enum')
    return fail('field_not_one_of', field, (first.params as { allowedValues: unknown[] }).allowedValues.join(', '));
  const type = (first.params as { type?: string }).type;
  if (first.keyword === 'type' && type !== undefined && type in TYPE_ROWS)
    return fail(TYPE_ROWS[type as keyof typeof TYPE_ROWS], field);
  if (first.keyword === 'minLength' && (first.params as { limit: number }).limit === 1)
    return fail('field_empty', field);
  if (first.keyword === 'maxLength')
    return fail('field_too_many_characters', field, (first.params as { limit: number }).limit);
  const range = first.keyword === 'minimum' || first.keyword === 'maximum' ? rangeError(first, field) : null;
  return range ?? fail('field_invalid', field, first.message ?? 'is invalid');
}

/** The iron APIs' schema failures: 406 for a missing field, 400 for anything else. */
export const IRON_SCHEMA_ERRORS: SchemaErrorStyle = { indexes: 'brackets', missingField: 'field_required' };

/** A schema failure as the iron APIs answer it. */
export function validationError(errors: ErrorObject[], context: string): HttpError {
  return schemaError(errors, context, IRON_SCHEMA_ERRORS);
}
