import { describe, expect, it } from 'vitest';
import { cachePaths, uniqueCacheName } from '../../helpers/cache.js';
import { CLIENT_HEADERS } from '../../helpers/client-headers.js';
import { useTestServer } from '../../helpers/test-file.js';

// The cache flows the official cache clients' own tests go through, sent as those clients send
// them. Both clients raise on any status but 2xx: every step here that they expect to succeed
// must answer 200, and an unknown cache must stay 404 (their helpers rescue that one).
const server = useTestServer();
type CacheClient = 'rubyCache' | 'pythonCache';

function send(client: CacheClient, method: string, path: string, body?: unknown) {
  const headers: Record<string, string> = { ...CLIENT_HEADERS[client] };
  if (body === undefined) delete headers['Content-Type'];
  return server.http.request(method, path, {
    headers,
    ...(body === undefined ? {} : { raw: JSON.stringify(body) }),
  });
}

describe('add on an existing key (the Ruby client counts with add + increment)', () => {
  for (const client of ['rubyCache', 'pythonCache'] as const) {
    it(`${client}: succeeds and leaves the item, value and expiry alike, unchanged`, async () => {
      const paths = cachePaths(server.projectId, uniqueCacheName('add'));
      expect((await send(client, 'PUT', paths.item('mykey'), { value: 0, expires_in: 60 })).status).toBe(200);
      expect((await send(client, 'POST', paths.increment('mykey'), { amount: 1 })).body.value).toBe(1);
      for (const expected of [2, 3]) {
        const add = await send(client, 'PUT', paths.item('mykey'), { value: 0, add: true, expires_in: 60 });
        expect(add.status, add.text).toBe(200);
        expect(typeof add.body.msg).toBe('string');
        expect((await send(client, 'POST', paths.increment('mykey'), { amount: 1 })).body.value).toBe(expected);
      }
    });
  }

  it('add on an absent key stores it', async () => {
    const paths = cachePaths(server.projectId, uniqueCacheName('add-absent'));
    expect((await send('rubyCache', 'PUT', paths.item('k'), { value: 'v', add: true })).body).toEqual({
      msg: 'Stored.',
    });
    expect((await send('rubyCache', 'GET', paths.item('k'))).body.value).toBe('v');
  });
});

describe('replace on an absent key', () => {
  it('succeeds without creating the item; on a present key it overwrites', async () => {
    const paths = cachePaths(server.projectId, uniqueCacheName('replace'));
    const absent = await send('pythonCache', 'PUT', paths.item('k'), { value: 'x', replace: true });
    expect(absent.status, absent.text).toBe(200);
    expect((await send('pythonCache', 'GET', paths.item('k'))).status).toBe(404);
    await send('pythonCache', 'PUT', paths.item('k'), { value: 'first' });
    expect((await send('pythonCache', 'PUT', paths.item('k'), { value: 'second', replace: true })).body).toEqual({
      msg: 'Stored.',
    });
    expect((await send('pythonCache', 'GET', paths.item('k'))).body.value).toBe('second');
  });
});

describe('clear, info and remove (the Ruby client reloads the cache after clearing it)', () => {
  it('clear keeps the cache: info answers 200 with size 0; remove ends it: info answers 404', async () => {
    const name = uniqueCacheName('clear');
    const paths = cachePaths(server.projectId, name);
    for (let i = 0; i < 5; i += 1) await send('rubyCache', 'PUT', paths.item(`key-${i}`), { value: 'value' });
    expect((await send('rubyCache', 'GET', paths.cache)).body.size).toBe(5);
    expect((await send('rubyCache', 'POST', paths.clear)).body).toEqual({ msg: 'Cleared.' });
    expect((await send('rubyCache', 'GET', paths.item('key-0'))).status).toBe(404);
    const reloaded = await send('rubyCache', 'GET', paths.cache);
    expect(reloaded.status).toBe(200);
    expect(reloaded.body.size).toBe(0);
    expect((await send('rubyCache', 'GET', paths.list)).body).toContainEqual({ project_id: server.projectId, name });

    expect((await send('rubyCache', 'DELETE', paths.cache)).body).toEqual({ msg: 'Deleted.' });
    const removed = await send('rubyCache', 'GET', paths.cache);
    expect(removed.status).toBe(404);
    expect(removed.body.msg).toBe('Cache not found');
    expect((await send('rubyCache', 'GET', paths.list)).body).not.toContainEqual({
      project_id: server.projectId,
      name,
    });
  });

  it('an unknown cache answers 404 to info, clear and remove', async () => {
    const paths = cachePaths(server.projectId, uniqueCacheName('unknown'));
    for (const [method, path] of [
      ['GET', paths.cache],
      ['POST', paths.clear],
      ['DELETE', paths.cache],
    ] as const) {
      expect((await send('rubyCache', method, path)).status, `${method} ${path}`).toBe(404);
    }
  });
});

describe('cas still refuses', () => {
  it('a stale cas is 409 and a cas on an absent key is 404: nothing is stored', async () => {
    const paths = cachePaths(server.projectId, uniqueCacheName('cas'));
    expect((await send('pythonCache', 'PUT', paths.item('absent'), { value: 1, cas: 3 })).status).toBe(404);
    await send('pythonCache', 'PUT', paths.item('k'), { value: 1 });
    const { cas } = (await send('pythonCache', 'GET', paths.item('k'))).body;
    await send('pythonCache', 'PUT', paths.item('k'), { value: 2 });
    expect((await send('pythonCache', 'PUT', paths.item('k'), { value: 3, cas })).status).toBe(409);
    expect((await send('pythonCache', 'GET', paths.item('k'))).body.value).toBe(2);
  });
});
