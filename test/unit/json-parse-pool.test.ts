import { afterAll, describe, expect, it } from 'vitest';
import { parseJsonBody } from '../../controller/http/json-body.js';
import { JsonParsePool } from '../../controller/http/json-parse-pool.js';
import { HttpError } from '../../src/core/errors.js';

// The parse pool's threads give what the main thread's parser gives: the same value, the same
// refusals (status, code, text), the same prototype-poisoning protection.
const pool = new JsonParsePool(1, 2);
afterAll(() => pool.close());

const parsedInPool = (text: string, takesObject = true) => pool.parse(Buffer.from(text), takesObject)!;

async function refusalOf(outcome: Promise<unknown>): Promise<HttpError> {
  const error = await outcome.then(
    () => null,
    (refused: unknown) => refused,
  );
  expect(error).toBeInstanceOf(HttpError);
  return error as HttpError;
}

describe('the JSON parse pool', () => {
  it('parses as the main thread does: unicode, escapes, nesting, empty and [] bodies', async () => {
    const nested = { a: [1, { b: 'é ☃ 😀 "\\\n\u2028' }, null, true], n: -1.5e-3, deep: { x: { y: { z: [] } } } };
    for (const text of [JSON.stringify(nested), '  ', '[]', ' [] ', '"text"', '12']) {
      for (const takesObject of [true, false]) {
        expect(await parsedInPool(text, takesObject)).toEqual(parseJsonBody(text, takesObject));
      }
    }
  });

  it('drops __proto__ keys and constructor.prototype as secure-json-parse does', async () => {
    const text = '{"a": {"__proto__": {"polluted": 1}}, "b": {"constructor": {"prototype": {"polluted": 1}}}}';
    const { value } = await parsedInPool(text);
    expect(value).toEqual(parseJsonBody(text, true).value);
    const { a, b } = value as { a: object; b: object };
    expect(Object.hasOwn(a, '__proto__')).toBe(false);
    expect(Object.hasOwn(b, 'constructor')).toBe(false);
    expect(({} as { polluted?: number }).polluted).toBeUndefined();
  });

  it('refuses what the main thread refuses, with the same status, code and text', async () => {
    for (const text of ['{"a": 1,}', '{"a": "\\ud800"}', `${'['.repeat(200)}${']'.repeat(200)}`, '{"a"']) {
      let expected: HttpError | null = null;
      try {
        parseJsonBody(text, true);
      } catch (error) {
        expected = error as HttpError;
      }
      const refused = await refusalOf(parsedInPool(text));
      expect({ status: refused.statusCode, code: refused.code, msg: refused.message }).toEqual({
        status: expected!.statusCode,
        code: expected!.code,
        msg: expected!.message,
      });
    }
  });

  it('keeps at most its bound of bodies waiting: past it the caller parses on its own thread', async () => {
    const jobs = Array.from({ length: 4 }, () => pool.parse(Buffer.from('{"a": 1}'), true));
    expect(jobs.filter((job) => job === null).length).toBeGreaterThan(0);
    await Promise.all(jobs);
  });
});
