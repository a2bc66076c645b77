import { describe, expect, it } from 'vitest';
import { Ajv } from 'ajv';
import { reserveBody } from '../../api/mq-v3/messages.js';
import { isPlainReserve } from '../../api/mq-v3/reserve-body-check.js';
import { bodyValidatorOf } from '../../controller/http/validation.js';
import { validatingWithoutNulls } from '../../src/core/null-fields.js';

const ref = (i: number) => ({ id: `id${i}`, reservation_id: `r${i}` });
const hundred = Array.from({ length: 100 }, (_, i) => ref(i));

const bodies: Array<[string, unknown]> = [
  ['an ack-and-next batch', { n: 100, delete: false, delete_reserved: hundred }],
  ['a plain reserve', { n: 10, timeout: 30, wait: 5 }],
  ['an empty body', {}],
  ['an empty delete_reserved', { n: 1, delete_reserved: [] }],
  ['an extra field', { n: 1, other: null, delete_reserved: [{ ...ref(0), more: null }] }],
  ['101 refs', { delete_reserved: [...hundred, ref(100)] }],
  ['n 0', { n: 0 }],
  ['n a fraction', { n: 1.5 }],
  ['n a string', { n: '10' }],
  ['n null', { n: null }],
  ['timeout null', { timeout: null }],
  ['timeout a fraction', { timeout: 30.5 }],
  ['a negative timeout', { timeout: -1 }],
  ['a negative wait', { wait: -1 }],
  ['wait null', { wait: null }],
  ['delete a string', { delete: 'true' }],
  ['delete null', { delete: null }],
  ['delete_reserved null', { delete_reserved: null }],
  ['delete_reserved an object', { delete_reserved: ref(0) }],
  ['a ref without reservation_id', { delete_reserved: [{ id: 'a' }] }],
  ['a ref without id', { delete_reserved: [{ reservation_id: 'r' }] }],
  ['a reservation_id null', { delete_reserved: [{ id: 'a', reservation_id: null }] }],
  ['an id a number', { delete_reserved: [{ id: 1, reservation_id: 'r' }] }],
  ['a ref a string', { delete_reserved: ['a'] }],
  ['a ref null', { delete_reserved: [null] }],
  ['a ref a list', { delete_reserved: [['a', 'r']] }],
  ['a list', [{ n: 1 }]],
  ['null', null],
];

// The route's check without the quick path: null pruning, then Ajv (verbose, as the route's, so errors carry both bounds).
const schemaOnly = validatingWithoutNulls(
  new Ajv({ coerceTypes: false, useDefaults: true, allErrors: false, strict: false, verbose: true }).compile(
    reserveBody,
  ),
  reserveBody,
);

describe('the v3 reserve quick check', () => {
  it('accepts plain reserves, each of which the schema accepts as it stands', () => {
    const accepted = bodies.filter(([, body]) => isPlainReserve(body));
    expect(accepted.map(([name]) => name)).toEqual([
      'an ack-and-next batch',
      'a plain reserve',
      'an empty body',
      'an empty delete_reserved',
      'an extra field',
      'a negative timeout',
    ]);
    for (const [, body] of accepted) {
      const copy = structuredClone(body);
      expect(schemaOnly(copy)).toBe(true);
      expect(copy).toEqual(body);
    }
  });

  it.each(bodies)('leaves the route validator answering %s as the schema does', (_name, body) => {
    const route = bodyValidatorOf(reserveBody);
    const [routeCopy, schemaCopy] = [structuredClone(body), structuredClone(body)];
    expect(route(routeCopy)).toBe(schemaOnly(schemaCopy));
    expect(route.errors ?? null).toEqual(schemaOnly.errors ?? null);
    expect(routeCopy).toEqual(schemaCopy);
  });
});
