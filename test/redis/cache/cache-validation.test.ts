import { describe, expect, it } from 'vitest';
import { encodeValue } from '../../../src/cache/item-rules.js';
import { loadConfig } from '../../../src/core/config.js';
import { cachePaths, uniqueCacheName } from '../../helpers/cache.js';
import { useTestServer } from '../../helpers/test-file.js';

const server = useTestServer();
function freshCache() {
  return cachePaths(server.projectId, uniqueCacheName('bad-input'));
}

async function expectRefused(res: { status: number; body: any }, status: number, msg: RegExp) {
  expect(res.status).toBe(status);
  expect(res.body.msg).toMatch(msg);
}

describe('put body', () => {
  it('missing value (or null: no value): 406 naming the field, nothing stored', async () => {
    const paths = freshCache();
    await expectRefused(await server.http.put(paths.item('k'), { expires_in: 10 }), 406, /^value is required$/);
    await expectRefused(await server.http.put(paths.item('k')), 406, /^value is required$/);
    await expectRefused(await server.http.put(paths.item('k'), { value: null }), 406, /^value is required$/);
    expect((await server.http.get(paths.item('k'))).status).toBe(404);
  });

  it('wrong types: 400 naming the field', async () => {
    const paths = freshCache();
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ value: 1, add: 'yes' }, /^add must be boolean$/],
      [{ value: 1, replace: 1 }, /^replace must be boolean$/],
      [{ value: 1, expires_in: '10' }, /^expires_in must be an integer$/],
      [{ value: 1, expires_in: 1.5 }, /^expires_in must be an integer$/],
      [{ value: 1, cas: true }, /^cas must be a positive integer/],
      [{ value: 1, cas: 1.5 }, /^cas must be a positive integer/],
      [{ value: 1, cas: 'abc' }, /^cas must be a positive integer/],
      [{ value: 1, cas: -3 }, /^cas must be a positive integer/],
      [{ value: 1, flags: 'x' }, /^flags must be an integer$/],
      [{ value: 1, flags: -1 }, /^flags must be between 0 and 4294967295$/],
      [{ value: 1, flags: 4_294_967_296 }, /^flags must be between 0 and 4294967295$/],
    ];
    for (const [body, msg] of cases) await expectRefused(await server.http.put(paths.item('k'), body), 400, msg);
    await expectRefused(await server.http.put(paths.item('k'), ['value']), 400, /^body must be an object$/);
    expect((await server.http.get(paths.item('k'))).status).toBe(404);
  });

  it('expires_in out of range: 400; the bounds themselves are accepted', async () => {
    const paths = freshCache();
    await expectRefused(
      await server.http.put(paths.item('k'), { value: 1, expires_in: -1 }),
      400,
      /^expires_in must be between 0 and 604800$/,
    );
    await expectRefused(
      await server.http.put(paths.item('k'), { value: 1, expires_in: 604801 }),
      400,
      /^expires_in must be between 0 and 604800$/,
    );
    expect((await server.http.put(paths.item('k'), { value: 1, expires_in: 604800 })).status).toBe(200);
    expect((await server.http.put(paths.item('k'), { value: 1, expires_in: 0 })).status).toBe(200);
  });

  it('contradictory conditions: 400', async () => {
    const paths = freshCache();
    await expectRefused(
      await server.http.put(paths.item('k'), { value: 1, add: true, replace: true }),
      400,
      /add and replace/,
    );
    await expectRefused(
      await server.http.put(paths.item('k'), { value: 1, add: true, cas: 5 }),
      400,
      /cas cannot be combined with add/,
    );
  });

  it('unparsable JSON: 400 saying so', async () => {
    const res = await server.http.put(freshCache().item('k'), undefined, {
      raw: '{"value": ',
      headers: { 'Content-Type': 'application/json' },
    });
    await expectRefused(res, 400, /Invalid JSON/);
  });
});

describe('sizes', () => {
  it('a value over 1 MB is refused with 413; exactly 1 MB is stored', async () => {
    const paths = freshCache();
    const limit = 1024 * 1024;
    await expectRefused(
      await server.http.put(paths.item('big'), { value: 'x'.repeat(limit + 1) }),
      413,
      /value is 1048577 bytes; the limit is 1048576 bytes/,
    );
    expect((await server.http.get(paths.item('big'))).status).toBe(404);
    expect((await server.http.put(paths.item('big'), { value: 'x'.repeat(limit) })).status).toBe(200);
    expect((await server.http.get(paths.item('big'))).body.value).toHaveLength(limit);
  });

  it('a large value of multi-byte characters (sent to Redis as its bytes) reads back as stored', async () => {
    const paths = freshCache();
    const value = 'é ☃ 😀 "/\\'.repeat(30_000);
    expect((await server.http.put(paths.item('wide'), { value })).status).toBe(200);
    expect((await server.http.get(paths.item('wide'))).body.value).toBe(value);
  });

  it('the value limit comes from FERRUM_CACHE_MAX_VALUE_BYTES and counts UTF-8 bytes', () => {
    expect(loadConfig({}).cache.maxValueBytes).toBe(1024 * 1024);
    const maxValueBytes = loadConfig({ FERRUM_CACHE_MAX_VALUE_BYTES: '10' }).cache.maxValueBytes;
    expect(maxValueBytes).toBe(10);
    expect(encodeValue('é'.repeat(5), maxValueBytes)).toBe('"ééééé"');
    expect(() => encodeValue('é'.repeat(6), maxValueBytes)).toThrow(/12 bytes; the limit is 10/);
    expect(() => encodeValue({ list: [1, 2, 3, 4] }, maxValueBytes)).toThrow(/limit is 10/);
  });

  it('a key over 250 bytes is refused with 400, also when multi-byte characters make it long', async () => {
    const paths = freshCache();
    await expectRefused(
      await server.http.put(paths.item('k'.repeat(251)), { value: 1 }),
      400,
      /^key must be at most 250 bytes$/,
    );
    await expectRefused(await server.http.get(paths.item('é'.repeat(126))), 400, /^key must be at most 250 bytes$/);
    await expectRefused(await server.http.post(paths.increment('k'.repeat(251)), { amount: 1 }), 400, /250 bytes/);
    const items = paths.item('').replace(/\/$/, '');
    await expectRefused(await server.http.put(`${items}/`, { value: 1 }), 400, /^key must not be empty/);
    await expectRefused(await server.http.get(items), 400, /^key must not be empty/);
    // Past the router's 1000-character parameter limit the framework itself answers 414.
    const tooLong = await server.http.get(paths.item('k'.repeat(5000)));
    expect(tooLong.status).toBe(414);
    expect(tooLong.body.msg).toContain('too long');
  });
});

describe('cache names', () => {
  it('refuses names with "/" or control characters and names over 255 bytes', async () => {
    const base = `/1/projects/${server.projectId}/caches`;
    await expectRefused(await server.http.put(`${base}/a%2Fb/items/k`, { value: 1 }), 400, /must not contain "\/"/);
    await expectRefused(await server.http.get(`${base}/bad%01name`), 400, /control characters/);
    await expectRefused(await server.http.delete(`${base}/${'n'.repeat(256)}`), 400, /at most 255 bytes/);
    await expectRefused(await server.http.post(`${base}/${'n'.repeat(256)}/clear`), 400, /at most 255 bytes/);
    expect((await server.http.put(`${base}/${'n'.repeat(255)}/items/k`, { value: 1 })).status).toBe(200);
  });
});

describe('increment body', () => {
  it('missing amount: 406; non-integer or wrongly typed amount: 400; value unchanged', async () => {
    const paths = freshCache();
    await server.http.put(paths.item('n'), { value: 7 });
    await expectRefused(await server.http.post(paths.increment('n'), {}), 406, /^amount is required$/);
    await expectRefused(await server.http.post(paths.increment('n')), 406, /^amount is required$/);
    await expectRefused(
      await server.http.post(paths.increment('n'), { amount: 1.5 }),
      400,
      /^amount must be an integer$/,
    );
    await expectRefused(
      await server.http.post(paths.increment('n'), { amount: '1' }),
      400,
      /^amount must be an integer$/,
    );
    await expectRefused(
      await server.http.post(paths.increment('n'), { amount: 2 ** 60 }),
      400,
      /amount must be an integer between/,
    );
    expect((await server.http.get(paths.item('n'))).body.value).toBe(7);
  });
});

describe('listing and methods', () => {
  it('page must be an integer from 0 to 100', async () => {
    const list = `/1/projects/${server.projectId}/caches`;
    await expectRefused(await server.http.get(`${list}?page=101`), 400, /^page must be between 0 and 100$/);
    await expectRefused(await server.http.get(`${list}?page=-1`), 400, /^page must be between 0 and 100$/);
    await expectRefused(await server.http.get(`${list}?page=abc`), 400, /^page must be an integer$/);
    expect((await server.http.get(`${list}?page=100`)).status).toBe(200);
  });

  it('an unsupported method answers 405 with a message', async () => {
    const paths = freshCache();
    await expectRefused(await server.http.patch(paths.item('k'), { value: 1 }), 405, /not allowed/);
    await expectRefused(await server.http.put(paths.cache, {}), 405, /not allowed/);
  });
});
