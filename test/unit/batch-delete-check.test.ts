import { describe, expect, it } from 'vitest';
import { batchDeleteBody } from '../../api/mq-v3/messages.js';
import { isPlainBatchDelete } from '../../api/mq-v3/batch-delete-check.js';
import { bodyValidatorOf } from '../../controller/http/validation.js';
import { validatingWithoutNulls } from '../../src/core/null-fields.js';
import { Ajv } from 'ajv';

const entry = (i: number) => ({ id: `id${i}`, reservation_id: `r${i}` });
const hundred = Array.from({ length: 100 }, (_, i) => entry(i));

const bodies: Array<[string, unknown]> = [
  ['a reserve batch', { ids: hundred }],
  ['ids without reservations', { ids: [{ id: 'a' }, { id: 'b', subscriber_name: 's' }] }],
  ['an extra field', { ids: [{ id: 'a', other: null }], more: null }],
  ['101 ids', { ids: [...hundred, entry(100)] }],
  ['no ids', {}],
  ['empty ids', { ids: [] }],
  ['ids null', { ids: null }],
  ['ids an object', { ids: { id: 'a' } }],
  ['an id missing', { ids: [{ reservation_id: 'r' }] }],
  ['an id null', { ids: [{ id: null }] }],
  ['an id a number', { ids: [{ id: 1 }] }],
  ['a reservation null', { ids: [{ id: 'a', reservation_id: null }] }],
  ['a reservation a number', { ids: [{ id: 'a', reservation_id: 7 }] }],
  ['a subscriber a list', { ids: [{ id: 'a', subscriber_name: ['s'] }] }],
  ['an entry a string', { ids: ['a'] }],
  ['an entry null', { ids: [null] }],
  ['an entry a list', { ids: [['a']] }],
  ['a list', [{ ids: hundred }]],
  ['null', null],
];

// The route's check without the quick path: null pruning, then Ajv (verbose, as the route's, so errors carry both bounds).
const schemaOnly = validatingWithoutNulls(
  new Ajv({ coerceTypes: false, useDefaults: true, allErrors: false, strict: false, verbose: true }).compile(
    batchDeleteBody,
  ),
  batchDeleteBody,
);

describe('the v3 batch delete quick check', () => {
  it('accepts plain batches, each of which the schema accepts as it stands', () => {
    const accepted = bodies.filter(([, body]) => isPlainBatchDelete(body));
    expect(accepted.map(([name]) => name)).toEqual(['a reserve batch', 'ids without reservations', 'an extra field']);
    for (const [, body] of accepted) {
      const copy = structuredClone(body);
      expect(schemaOnly(copy)).toBe(true);
      expect(copy).toEqual(body);
    }
  });

  it.each(bodies)('leaves the route validator answering %s as the schema does', (_name, body) => {
    const route = bodyValidatorOf(batchDeleteBody);
    const [routeCopy, schemaCopy] = [structuredClone(body), structuredClone(body)];
    expect(route(routeCopy)).toBe(schemaOnly(schemaCopy));
    expect(route.errors ?? null).toEqual(schemaOnly.errors ?? null);
    expect(routeCopy).toEqual(schemaCopy);
  });
});
