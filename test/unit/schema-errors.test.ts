import { Ajv, type ErrorObject } from 'ajv';
import { describe, expect, it } from 'vitest';
import { schemaError, validationError } from '../../api/schema-errors.js';
import { FUNCTIONS_ERROR_SHAPE } from '../../api/functions/errors.js';

const ajv = new Ajv({ allErrors: false, strict: false });
const validate = ajv.compile({
  type: 'object',
  required: ['name'],
  properties: {
    name: { type: 'string' },
    kind: { enum: ['a', 'b'] },
    tags: { type: 'array', items: { type: 'object', required: ['key'], properties: { key: { type: 'string' } } } },
  },
});

function errorsOf(body: unknown): ErrorObject[] {
  expect(validate(body)).toBe(false);
  return validate.errors!;
}

const answer = (error: { statusCode: number; message: string }) => `${error.statusCode} ${error.message}`;

describe('schema failures as the iron APIs answer them', () => {
  it('a missing field is 406 naming it, nested ones with their path', () => {
    expect(answer(validationError(errorsOf({}), 'body'))).toBe('406 name is required');
    expect(answer(validationError(errorsOf({ name: 'n', tags: [{}] }), 'body'))).toBe('406 tags[0].key is required');
  });

  it('a value outside an enum names the allowed ones; a wrong type says what it must be', () => {
    expect(answer(validationError(errorsOf({ name: 'n', kind: 'c' }), 'body'))).toBe('400 kind must be one of: a, b');
    expect(answer(validationError(errorsOf({ name: 1 }), 'body'))).toBe('400 name must be a string');
    expect(answer(validationError(errorsOf([]), 'body'))).toBe('400 body must be an object');
  });

  it('no failure listed still names the part of the request', () => {
    expect(answer(validationError([], 'querystring'))).toBe('400 invalid querystring');
  });
});

describe('one mapping from Ajv failures to the field rows', () => {
  const verbose = new Ajv({ allErrors: false, strict: false, verbose: true });
  const check = verbose.compile({
    type: 'object',
    properties: {
      retries: { type: 'integer', minimum: 0, maximum: 100 },
      delay: { type: 'integer', minimum: 0 },
      names: { type: 'array' },
      push: { type: 'object' },
      label: { type: 'string', minLength: 1, maxLength: 3 },
    },
  });
  const refusal = (body: unknown) => {
    expect(check(body)).toBe(false);
    return answer(validationError(check.errors!, 'body'));
  };

  it('a wrong type is the row of the type wanted', () => {
    expect(refusal({ retries: 'x' })).toBe('400 retries must be an integer');
    expect(refusal({ names: {} })).toBe('400 names must be a list');
    expect(refusal({ push: [] })).toBe('400 push must be an object');
  });

  it('a number out of range names both bounds when the schema has both, else the lower one', () => {
    expect(refusal({ retries: 101 })).toBe('400 retries must be between 0 and 100');
    expect(refusal({ retries: -1 })).toBe('400 retries must be between 0 and 100');
    expect(refusal({ delay: -1 })).toBe('400 delay must be at least 0');
  });

  it('a text over maxLength names the most characters; an empty one where minLength is 1 must not be', () => {
    expect(refusal({ label: 'abcd' })).toBe('400 label must be at most 3 characters');
    expect(refusal({ label: '' })).toBe('400 label must not be empty');
  });
});

describe('schema failures as the functions API answers them', () => {
  const style = FUNCTIONS_ERROR_SHAPE.schema;

  it('a missing field is 400, and array indexes are dotted', () => {
    expect(answer(schemaError(errorsOf({}), 'body', style))).toBe('400 name is required');
    expect(answer(schemaError(errorsOf({ name: 'n', tags: [{}] }), 'body', style))).toBe('400 tags.0.key is required');
  });

  it('answers in its own body shape', () => {
    expect(FUNCTIONS_ERROR_SHAPE.body('name is required')).toEqual({ error: { message: 'name is required' } });
  });
});
