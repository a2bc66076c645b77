import { afterAll, describe, expect, it } from 'vitest';
import { parseJsonBody } from '../../controller/http/json-body.js';
import { JsonParsePool } from '../../controller/http/json-parse-pool.js';
import { HttpError } from '../../src/core/errors.js';
import type { RawBody } from '../../controller/http/raw-body.js';
import { BODY_BYTES } from '../../api/body-bytes.js';
import { encodeValue } from '../../src/cache/item-rules.js';

// The parse pool's threads give what the main thread's parser gives: the same value, the same
// refusals (status, code, text), the same prototype-poisoning protection.
const pool = new JsonParsePool(1, 2);
afterAll(() => pool.close());

/** A body as read from a socket: its chunks, of `size` bytes (the last one shorter). */
function chunked(bytes: Buffer, size = 7): RawBody {
  const chunks: Buffer[] = [];
  for (let at = 0; at < bytes.length; at += size) chunks.push(Buffer.from(bytes.subarray(at, at + size)));
  return { chunks, length: bytes.length };
}

const parsedInPool = (text: string, takesObject = true) => pool.parse(chunked(Buffer.from(text)), takesObject)!;

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
        expect(await parsedInPool(text, takesObject)).toEqual({ ...parseJsonBody(text, takesObject), bytes: null });
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
    const jobs = Array.from({ length: 4 }, () => pool.parse(chunked(Buffer.from('{"a": 1}')), true));
    expect(jobs.filter((job) => job === null).length).toBeGreaterThan(0);
    await Promise.all(jobs);
  });

  it('joins chunks that split multi-byte characters, from buffers shared or not, moved or copied', async () => {
    const text = JSON.stringify({ value: 'é☃😀'.repeat(50) });
    const shared = Buffer.from(text);
    // Views of one buffer (as a read buffer's may be), then buffers of their own.
    const views = {
      chunks: [shared.subarray(0, 5), shared.subarray(5, 11), shared.subarray(11)],
      length: shared.length,
    };
    for (const body of [views, chunked(Buffer.from(text), 5)]) {
      expect((await pool.parse(body, true))!.value).toEqual(JSON.parse(text));
    }
    expect(shared.toString()).toBe(text);
  });

  it("works out the parts a route takes as bytes, byte for byte what the main thread's encoding gives", async () => {
    const value = { text: 'é ☃ 😀 "q" \\ \u2028 \u0001', n: [1, 2.5, -3e-7], nested: { deep: [true, false] } };
    for (const stored of [value, 'é☃😀 "q"\n'.repeat(1000), 12, 'plain']) {
      const put = await pool.parse(
        chunked(Buffer.from(JSON.stringify({ value: stored, expires_in: 5 }))),
        true,
        'cacheValue',
      );
      expect(put!.bytes!.parts.map((part) => part.toString('hex'))).toEqual([
        Buffer.from(encodeValue(stored, 1e9)).toString('hex'),
      ]);
      expect(put!.bytes!.size).toBe(Buffer.byteLength(typeof stored === 'string' ? stored : JSON.stringify(stored)));
      // The value itself stays in the thread (the route reads its bytes): the rest comes as parsed.
      expect(put!.value).toEqual({ value: true, expires_in: 5 });
    }
    const bodies = ['é☃😀', '', 'plain', '"quoted"\n'];
    const post = await pool.parse(
      chunked(Buffer.from(JSON.stringify({ messages: bodies.map((body) => ({ body })) }))),
      true,
      'messageBodies',
    );
    expect(post!.bytes!.parts.map(String)).toEqual(bodies);
    expect(post!.value).toEqual({ messages: bodies.map((body) => ({ body })) });
    expect(post!.bytes!.size).toBe(bodies.reduce((sum, body) => sum + Buffer.byteLength(body), 0));
  });

  it("gives no bytes for a body not of the route's shape (its schema refuses it, or the handler encodes)", async () => {
    for (const text of ['{"value": null}', '{}', '[]', '', '{"messages": [{"body": 1}]}', '{"messages": {}}']) {
      const kind = text.includes('messages') ? 'messageBodies' : 'cacheValue';
      expect((await pool.parse(chunked(Buffer.from(text)), true, kind))!.bytes).toBeNull();
    }
    expect(BODY_BYTES.cacheValue({ value: 'v' })!.parts.map(String)).toEqual(['"v"']);
  });
});
