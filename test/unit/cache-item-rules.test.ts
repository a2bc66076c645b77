import { describe, expect, it } from 'vitest';
import {
  checkAmount,
  checkCacheName,
  checkItemKey,
  encodeValue,
  MAX_CACHE_NAME_BYTES,
  MAX_KEY_BYTES,
  putCondition,
} from '../../src/cache/item-rules.js';
import { HttpError } from '../../src/core/errors.js';

/** The status and message a rule refuses with. */
function refusal(rule: () => unknown): [number, string] {
  try {
    rule();
  } catch (error) {
    if (error instanceof HttpError) return [error.statusCode, error.message];
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('cache item rules', () => {
  it('refuses reserved, long and unsafe cache names', () => {
    for (const name of ['', '.', '..'])
      expect(refusal(() => checkCacheName(name))).toEqual([400, 'cache name must not be empty, "." or ".."']);
    expect(refusal(() => checkCacheName('é'.repeat(128)))).toEqual([
      400,
      `cache name must be at most ${MAX_CACHE_NAME_BYTES} bytes`,
    ]);
    for (const name of ['a/b', 'a\u0000b'])
      expect(refusal(() => checkCacheName(name))).toEqual([
        400,
        'cache name must not contain "/" or control characters',
      ]);
    expect(() => checkCacheName('a'.repeat(MAX_CACHE_NAME_BYTES))).not.toThrow();
  });

  it('refuses empty and long keys', () => {
    expect(refusal(() => checkItemKey(''))).toEqual([400, 'key must not be empty']);
    expect(refusal(() => checkItemKey('k'.repeat(MAX_KEY_BYTES + 1)))).toEqual([
      400,
      `key must be at most ${MAX_KEY_BYTES} bytes`,
    ]);
  });

  it('counts a string by its UTF-8 bytes and anything else by its JSON text', () => {
    expect(encodeValue('é'.repeat(5), 10)).toBe('"ééééé"');
    expect(refusal(() => encodeValue('é'.repeat(6), 10))).toEqual([413, 'value is 12 bytes; the limit is 10 bytes']);
    expect(refusal(() => encodeValue(null, 10))).toEqual([400, 'value must not be null']);
  });

  it('reads the put condition from add, replace and cas', () => {
    expect(putCondition({})).toEqual({ kind: 'always' });
    expect(putCondition({ add: true })).toEqual({ kind: 'add' });
    expect(putCondition({ replace: true })).toEqual({ kind: 'replace' });
    expect(putCondition({ cas: 12 })).toEqual({ kind: 'cas', cas: '12' });
    expect(putCondition({ replace: true, cas: '7' })).toEqual({ kind: 'cas', cas: '7' });
    expect(refusal(() => putCondition({ add: true, replace: true }))).toEqual([
      400,
      'add and replace cannot both be true',
    ]);
    expect(refusal(() => putCondition({ add: true, cas: 1 }))).toEqual([
      400,
      'cas cannot be combined with add: cas needs an existing item',
    ]);
    for (const cas of [0, '01', -1, 1.5, 'x', true])
      expect(refusal(() => putCondition({ cas }))).toEqual([
        400,
        'cas must be a positive integer, as returned by a get',
      ]);
  });

  it('takes only safe integers as increment amounts', () => {
    expect(() => checkAmount(-5)).not.toThrow();
    expect(refusal(() => checkAmount(2 ** 53))[1]).toMatch(/^amount must be an integer between /);
  });
});
