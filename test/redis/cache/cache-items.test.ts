import { describe, expect, it } from 'vitest';
import { cachePaths, uniqueCacheName } from '../../helpers/cache.js';
import { useTestServer } from '../../helpers/test-file.js';

const server = useTestServer();
function freshCache() {
  return cachePaths(server.projectId, uniqueCacheName('items'));
}

async function valueOf(path: string) {
  const res = await server.http.get(path);
  return res.status === 200 ? res.body.value : undefined;
}

describe('item state table', () => {
  it('absent + put with no flag: stored, and get returns cache, key, value and cas', async () => {
    const paths = freshCache();
    const put = await server.http.put(paths.item('k'), { value: 'hello' });
    expect(put.status).toBe(200);
    expect(put.body).toEqual({ msg: 'Stored.' });
    const got = await server.http.get(paths.item('k'));
    expect(got.status).toBe(200);
    expect(got.body).toEqual({
      cache: expect.any(String),
      key: 'k',
      value: 'hello',
      cas: expect.any(Number),
      expires: '9999-01-01T00:00:00Z',
      flags: 0,
    });
    expect(got.body.cas).toBeGreaterThan(0);
    // get does not remove the item
    expect(await valueOf(paths.item('k'))).toBe('hello');
  });

  it('item meta: the flags given on put, and when the item expires (whole seconds, UTC)', async () => {
    const paths = freshCache();
    const before = Date.now();
    await server.http.put(paths.item('k'), { value: 'v', flags: 42, expires_in: 120 });
    const got = await server.http.get(paths.item('k'));
    expect(got.body).toMatchObject({
      value: 'v',
      flags: 42,
      expires: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
    });
    const expires = Date.parse(got.body.expires);
    expect(expires).toBeGreaterThanOrEqual(before + 120_000);
    expect(expires).toBeLessThanOrEqual(Date.now() + 121_000);
  });

  it('absent + put add: stored', async () => {
    const paths = freshCache();
    expect((await server.http.put(paths.item('k'), { value: 1, add: true })).status).toBe(200);
    expect(await valueOf(paths.item('k'))).toBe(1);
  });

  it('present + put add: unchanged, 200 saying the item was not stored', async () => {
    const paths = freshCache();
    await server.http.put(paths.item('k'), { value: 'first' });
    const { cas } = (await server.http.get(paths.item('k'))).body;
    const res = await server.http.put(paths.item('k'), { value: 'second', add: true });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ msg: 'Not stored: add keeps the item already under this key.' });
    expect((await server.http.get(paths.item('k'))).body).toMatchObject({ value: 'first', cas });
  });

  it('present + put replace: overwritten', async () => {
    const paths = freshCache();
    await server.http.put(paths.item('k'), { value: 'first' });
    expect((await server.http.put(paths.item('k'), { value: 'second', replace: true })).status).toBe(200);
    expect(await valueOf(paths.item('k'))).toBe('second');
  });

  it('absent + put replace: not created, 200 saying the item was not stored', async () => {
    const paths = freshCache();
    const res = await server.http.put(paths.item('k'), { value: 'x', replace: true });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ msg: 'Not stored: replace stores only keys that are in the cache.' });
    expect((await server.http.get(paths.item('k'))).status).toBe(404);
  });

  it('present + put with the current cas: overwritten, with a new cas', async () => {
    const paths = freshCache();
    await server.http.put(paths.item('k'), { value: 'first' });
    const { cas } = (await server.http.get(paths.item('k'))).body;
    expect((await server.http.put(paths.item('k'), { value: 'second', cas })).status).toBe(200);
    const after = (await server.http.get(paths.item('k'))).body;
    expect(after.value).toBe('second');
    expect(after.cas).not.toBe(cas);
    // the cas as a string works too: clients echo what they read
    expect((await server.http.put(paths.item('k'), { value: 'third', cas: String(after.cas) })).status).toBe(200);
    expect(await valueOf(paths.item('k'))).toBe('third');
  });

  it('present + put with a stale cas: unchanged, 409 cas mismatch', async () => {
    const paths = freshCache();
    await server.http.put(paths.item('k'), { value: 'first' });
    const { cas } = (await server.http.get(paths.item('k'))).body;
    await server.http.put(paths.item('k'), { value: 'second' });
    const res = await server.http.put(paths.item('k'), { value: 'third', cas });
    expect(res.status).toBe(409);
    expect(res.body.msg).toMatch(/cas mismatch/);
    expect(await valueOf(paths.item('k'))).toBe('second');
  });

  it('absent + put with a cas: not stored, 404', async () => {
    const paths = freshCache();
    const res = await server.http.put(paths.item('k'), { value: 'x', cas: 12345 });
    expect(res.status).toBe(404);
    expect((await server.http.get(paths.item('k'))).status).toBe(404);
  });

  it('every stored version gets a new cas', async () => {
    const paths = freshCache();
    const seen = new Set<number>();
    for (let i = 0; i < 5; i += 1) {
      await server.http.put(paths.item('k'), { value: i });
      seen.add((await server.http.get(paths.item('k'))).body.cas);
    }
    await server.http.post(paths.increment('k'), { amount: 1 });
    seen.add((await server.http.get(paths.item('k'))).body.cas);
    expect(seen.size).toBe(6);
  });

  it('present + increment of a numeric value: changed by amount; negative decrements', async () => {
    const paths = freshCache();
    await server.http.put(paths.item('n'), { value: 10 });
    const up = await server.http.post(paths.increment('n'), { amount: 5 });
    expect(up.status).toBe(200);
    expect(up.body).toEqual({ msg: 'Added', value: 15 });
    const down = await server.http.post(paths.increment('n'), { amount: -20 });
    expect(down.body.value).toBe(-5);
    expect(await valueOf(paths.item('n'))).toBe(-5);
  });

  it('present + increment of a non-numeric value: unchanged, 400 with a message', async () => {
    const paths = freshCache();
    for (const value of ['abc', true, { a: 1 }, [1]]) {
      await server.http.put(paths.item('x'), { value });
      const res = await server.http.post(paths.increment('x'), { amount: 1 });
      expect(res.status).toBe(400);
      expect(res.body.msg).toBe('Cannot increment or decrement non-numeric value');
      expect(await valueOf(paths.item('x'))).toEqual(value);
    }
    await server.http.put(paths.item('f'), { value: 1.5 });
    const float = await server.http.post(paths.increment('f'), { amount: 1 });
    expect(float.status).toBe(400);
    expect(float.body.msg).toMatch(/not an integer/);
    expect(await valueOf(paths.item('f'))).toBe(1.5);
  });

  it('present + delete item: absent; a second delete and a get are 404', async () => {
    const paths = freshCache();
    await server.http.put(paths.item('k'), { value: 'x' });
    const res = await server.http.delete(paths.item('k'));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ msg: 'Deleted.' });
    expect((await server.http.get(paths.item('k'))).status).toBe(404);
    const again = await server.http.delete(paths.item('k'));
    expect(again.status).toBe(404);
    expect(again.body.msg).toBe("The resource, project, or endpoint being requested doesn't exist.");
  });

  it('present + clear cache: every item absent; the cache stays, size 0', async () => {
    const paths = freshCache();
    await server.http.put(paths.item('a'), { value: 1 });
    await server.http.put(paths.item('b'), { value: 2, expires_in: 60 });
    const res = await server.http.post(paths.clear);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ msg: 'Cleared.' });
    expect((await server.http.get(paths.item('a'))).status).toBe(404);
    expect((await server.http.get(paths.item('b'))).status).toBe(404);
    const info = await server.http.get(paths.cache);
    expect(info.status).toBe(200);
    expect(info.body.size).toBe(0);
  });

  it('present + delete cache: the cache and its items are gone', async () => {
    const paths = freshCache();
    await server.http.put(paths.item('a'), { value: 1 });
    const res = await server.http.delete(paths.cache);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ msg: 'Deleted.' });
    expect((await server.http.get(paths.item('a'))).status).toBe(404);
    expect((await server.http.get(paths.cache)).status).toBe(404);
    // put recreates it
    expect((await server.http.put(paths.item('a'), { value: 2 })).status).toBe(200);
    expect(await valueOf(paths.item('a'))).toBe(2);
  });
});

describe('values and keys', () => {
  it('values keep their JSON type on the round trip', async () => {
    const paths = freshCache();
    const values = ['text', '42', 42, -7, 3.25, 0, true, false, { nested: { list: [1, 'two', null] } }, [1, 2, 3], ''];
    for (const [i, value] of values.entries()) {
      expect((await server.http.put(paths.item(`v${i}`), { value })).status).toBe(200);
      expect(await valueOf(paths.item(`v${i}`))).toStrictEqual(value);
    }
  });

  it('a large value (read beside the script, answered as its bytes) comes back exactly as JSON text', async () => {
    const paths = freshCache();
    const value = { text: 'é ☃ 😀 "q" \\ \u2028 '.repeat(8_000), n: 12345678901234567890n.toString() };
    expect((await server.http.put(paths.item('big'), { value })).status).toBe(200);
    const res = await server.http.get(paths.item('big'));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(Number(res.headers.get('content-length'))).toBe(Buffer.byteLength(res.text));
    expect(Buffer.byteLength(res.text)).toBeGreaterThan(64 * 1024);
    expect(res.body.value).toStrictEqual(value);
    expect(res.text).toBe(
      `{"cache":${JSON.stringify(res.body.cache)},"key":"big","value":${JSON.stringify(value)},"cas":${res.body.cas},"expires":"9999-01-01T00:00:00Z","flags":0}`,
    );
  });

  it('keys are any URL-encoded string up to 250 bytes', async () => {
    const paths = freshCache();
    const keys = [
      'with space',
      'slash/and?query&x=1#frag',
      'ünïcødé ✓',
      'colon:semi;',
      '%41 literal percent',
      'a'.repeat(250),
      'é'.repeat(125),
    ];
    for (const key of keys) {
      expect((await server.http.put(paths.item(key), { value: key })).status).toBe(200);
    }
    for (const key of keys) {
      const got = await server.http.get(paths.item(key));
      expect(got.status).toBe(200);
      expect(got.body.key).toBe(key);
      expect(got.body.value).toBe(key);
    }
    expect((await server.http.get(paths.cache)).body.size).toBe(keys.length);
  });

  it('put and increment create the cache', async () => {
    const paths = freshCache();
    expect((await server.http.get(paths.cache)).status).toBe(404);
    await server.http.post(paths.increment('hits'), { amount: 3 });
    expect((await server.http.get(paths.cache)).body.size).toBe(1);
  });
});

describe('increment', () => {
  it('creates a missing item with the amount as its value', async () => {
    const paths = freshCache();
    const res = await server.http.post(paths.increment('new'), { amount: -4 });
    expect(res.status).toBe(200);
    expect(res.body.value).toBe(-4);
    expect(await valueOf(paths.item('new'))).toBe(-4);
  });

  it('increments a string of digits and keeps it a string', async () => {
    const paths = freshCache();
    await server.http.put(paths.item('s'), { value: '10' });
    expect((await server.http.post(paths.increment('s'), { amount: 15 })).body.value).toBe(25);
    expect(await valueOf(paths.item('s'))).toBe('25');
  });

  it('keeps exact 64-bit precision up to the limit and refuses overflow without changing the value', async () => {
    const paths = freshCache();
    await server.http.put(paths.item('big'), { value: '9223372036854775800' });
    const max = await server.http.post(paths.increment('big'), { amount: 7 });
    expect(max.status).toBe(200);
    expect(max.text).toContain('"value":9223372036854775807');
    const over = await server.http.post(paths.increment('big'), { amount: 1 });
    expect(over.status).toBe(400);
    expect(over.body.msg).toMatch(/overflow/);
    expect(await valueOf(paths.item('big'))).toBe('9223372036854775807');

    await server.http.put(paths.item('small'), { value: '-9223372036854775800' });
    const min = await server.http.post(paths.increment('small'), { amount: -8 });
    expect(min.text).toContain('"value":-9223372036854775808');
    const under = await server.http.post(paths.increment('small'), { amount: -1 });
    expect(under.status).toBe(400);
    expect(under.body.msg).toMatch(/overflow/);
  });

  it('is exact for numbers beyond 2^53 and reports them exactly on get', async () => {
    const paths = freshCache();
    await server.http.post(paths.increment('n'), { amount: Number.MAX_SAFE_INTEGER });
    const res = await server.http.post(paths.increment('n'), { amount: Number.MAX_SAFE_INTEGER });
    expect(res.text).toContain('"value":18014398509481982');
    await server.http.post(paths.increment('n'), { amount: 1 });
    const got = await server.http.get(paths.item('n'));
    expect(got.text).toContain('"value":18014398509481983');
  });

  it('refuses a value outside the 64-bit range', async () => {
    const paths = freshCache();
    await server.http.put(paths.item('huge'), { value: '99999999999999999999' });
    const res = await server.http.post(paths.increment('huge'), { amount: 1 });
    expect(res.status).toBe(400);
    expect(res.body.msg).toMatch(/64-bit/);
    expect(await valueOf(paths.item('huge'))).toBe('99999999999999999999');
  });

  it('observes all of 50 concurrent increments', async () => {
    const paths = freshCache();
    const results = await Promise.all(
      Array.from({ length: 50 }, () => server.http.post(paths.increment('counter'), { amount: 2 })),
    );
    expect(results.every((res) => res.status === 200)).toBe(true);
    const seen = results.map((res) => res.body.value as number).sort((a, b) => a - b);
    expect(seen).toEqual(Array.from({ length: 50 }, (_, i) => 2 * (i + 1)));
    expect(await valueOf(paths.item('counter'))).toBe(100);
  });
});

describe('cas races', () => {
  it('two writers with the same cas: exactly one wins', async () => {
    const paths = freshCache();
    for (let round = 0; round < 10; round += 1) {
      await server.http.put(paths.item('k'), { value: 'base' });
      const { cas } = (await server.http.get(paths.item('k'))).body;
      const [a, b] = await Promise.all([
        server.http.put(paths.item('k'), { value: 'a', cas }),
        server.http.put(paths.item('k'), { value: 'b', cas }),
      ]);
      const statuses = [a.status, b.status].sort();
      expect(statuses).toEqual([200, 409]);
      expect(await valueOf(paths.item('k'))).toBe(a.status === 200 ? 'a' : 'b');
    }
  });
});
