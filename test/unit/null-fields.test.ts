import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { acceptsNull, ANY_BUT_NULL, nullPrunerOf, validatingWithoutNulls } from '../../src/core/null-fields.js';

const task = {
  type: 'object',
  required: ['code_name'],
  properties: {
    code_name: { type: 'string' },
    label: { type: 'string' },
    priority: { type: 'integer' },
    anything: {},
    maybe: { type: ['string', 'null'] },
    env: { type: 'object', additionalProperties: { type: 'string' } },
  },
} as const;
const body = { type: 'object', required: ['tasks'], properties: { tasks: { type: 'array', items: task } } } as const;

describe('acceptsNull', () => {
  it('tells the schemas null passes from those it does not', () => {
    for (const schema of [{}, true, { type: 'null' }, { type: ['integer', 'null'] }, { enum: ['a', null] }])
      expect(acceptsNull(schema), JSON.stringify(schema)).toBe(true);
    for (const schema of [
      false,
      { type: 'string' },
      { type: ['integer', 'string'] },
      { enum: ['a'] },
      { const: 1 },
      ANY_BUT_NULL,
      { anyOf: [{ type: 'string' }, { type: 'integer' }] },
    ])
      expect(acceptsNull(schema), JSON.stringify(schema)).toBe(false);
  });
});

describe('nullPrunerOf', () => {
  it('drops nulls of fields whose schema refuses null, at every depth; keeps those null may be', () => {
    const value = {
      tasks: [
        { code_name: 'a', label: null, priority: null, anything: null, maybe: null, env: { A: 'x', B: null } },
        { code_name: null },
      ],
    };
    nullPrunerOf(body)!(value);
    expect(value).toEqual({
      tasks: [{ code_name: 'a', anything: null, maybe: null, env: { A: 'x' } }, {}],
    });
  });

  it('is undefined for a schema with nothing to drop (no cost on such routes)', () => {
    expect(nullPrunerOf({ type: 'object', properties: { x: {} } })).toBeUndefined();
    expect(nullPrunerOf({ type: 'string' })).toBeUndefined();
  });

  it('leaves null array elements and non-object values for the schema to judge', () => {
    const value = { tasks: [null, 'x'] };
    nullPrunerOf(body)!(value);
    expect(value).toEqual({ tasks: [null, 'x'] });
  });

  it('a declared property keeps its own rule even where additionalProperties would drop it', () => {
    const schema = { type: 'object', properties: { keep: {} }, additionalProperties: ANY_BUT_NULL };
    const value = { keep: null, other: null, set: 1 };
    nullPrunerOf(schema)!(value);
    expect(value).toEqual({ keep: null, set: 1 });
  });
});

describe('validatingWithoutNulls', () => {
  const ajv = new Ajv({ strict: false });
  const validate = validatingWithoutNulls(ajv.compile(body), body);

  it('an optional null passes; a required null fails as missing', () => {
    expect(validate({ tasks: [{ code_name: 'a', label: null, priority: null }] })).toBe(true);
    expect(validate({ tasks: [{ code_name: null }] })).toBe(false);
    expect(validate.errors?.[0]).toMatchObject({ keyword: 'required', params: { missingProperty: 'code_name' } });
    expect(validate({ tasks: null })).toBe(false);
    expect(validate.errors?.[0]).toMatchObject({ keyword: 'required', params: { missingProperty: 'tasks' } });
  });

  it('a wrong type is still an error', () => {
    expect(validate({ tasks: [{ code_name: 'a', label: 5 }] })).toBe(false);
    expect(validate.errors?.[0]).toMatchObject({ instancePath: '/tasks/0/label', keyword: 'type' });
  });
});
