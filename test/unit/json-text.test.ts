import secureJson from 'secure-json-parse';
import { describe, expect, it } from 'vitest';
import { parseJsonText } from '../../src/core/json-text.js';
import { HttpError } from '../../src/core/errors.js';
import { MAX_JSON_DEPTH, nestsDeeperThan, valueNestsDeeperThan } from '../../src/core/json-depth.js';

/** What a JSON body parsed to before the fast path: the text's depth scanned first, then secure-json-parse. */
function scannedThenSecure(text: string): { value?: unknown; error?: string } {
  if (nestsDeeperThan(text, MAX_JSON_DEPTH)) return { error: `Invalid JSON body: nested deeper than 64 levels` };
  try {
    return { value: secureJson.parse(text, undefined, { protoAction: 'remove', constructorAction: 'remove' }) };
  } catch (error) {
    return { error: `Invalid JSON body: ${(error as Error).message}` };
  }
}

function parsed(text: string): { value?: unknown; error?: string } {
  try {
    return { value: parseJsonText(text) };
  } catch (error) {
    expect(error).toBeInstanceOf(HttpError);
    expect((error as HttpError).statusCode).toBe(400);
    return { error: (error as HttpError).message };
  }
}

const nested = (depth: number, inner = '1') => '['.repeat(depth) + inner + ']'.repeat(depth);

describe('parseJsonText', () => {
  it.each([
    ['a batch delete', JSON.stringify({ ids: [{ id: 'a', reservation_id: 'b' }] })],
    ['scalars', '1'],
    ['a string', '"[[[["'],
    ['null', 'null'],
    ['64 levels', nested(64)],
    ['65 levels', nested(65)],
    ['20,000 levels', nested(20_000)],
    ['65 levels, unparsable', nested(65, '1,')],
    ['brackets inside strings', `{"a":"${'['.repeat(100)}","b":"\\"{{{{"}`],
    ['unparsable', '{"a":'],
    ['a trailing comma', '{"a":1,}'],
    ['a __proto__ key', '{"a":1,"__proto__":{"admin":true}}'],
    ['an escaped __proto__ key', '{"a":1,"\\u005f_proto__":{"admin":true}}'],
    ['a nested __proto__ key', '{"a":[{"__proto__":{"x":1},"b":2}]}'],
    ['a constructor with a prototype', '{"constructor":{"prototype":{"admin":true}},"c":1}'],
    ['a constructor without one', '{"constructor":"x"}'],
    ['an escaped constructor', '{"\\u0063onstructor":{"prototype":{"x":1}}}'],
    ['__proto__ inside a string', '{"a":"__proto__","b":"constructor"}'],
    ['a \\u escape elsewhere', '{"a":"\\u00e9"}'],
  ])('parses %s as secure-json-parse did after the depth scan', (_name, text) => {
    const expected = scannedThenSecure(text);
    const actual = parsed(text);
    expect(actual).toEqual(expected);
    // toEqual skips a __proto__ key: the texts say whether one was kept.
    expect(JSON.stringify(actual.value)).toBe(JSON.stringify(expected.value));
    if (actual.value && typeof actual.value === 'object' && !Array.isArray(actual.value))
      expect(Object.getPrototypeOf(actual.value)).toBe(Object.prototype);
  });
});

describe('valueNestsDeeperThan', () => {
  it('agrees with the text scan on valid JSON', () => {
    for (const depth of [0, 1, 63, 64, 65, 200]) {
      const texts = [nested(depth), `{"a":${nested(depth)}}`, `[{"x":[${nested(depth)}]}]`];
      for (const text of texts)
        expect(valueNestsDeeperThan(JSON.parse(text), MAX_JSON_DEPTH), text.slice(0, 20)).toBe(
          nestsDeeperThan(text, MAX_JSON_DEPTH),
        );
    }
  });
});
