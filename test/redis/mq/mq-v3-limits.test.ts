import { beforeAll, describe, expect, it } from 'vitest';
import { RESERVED_PUSH_HEADERS, useMqClient, uniqueQueue } from '../../helpers/mq.js';
import { useTestServer } from '../../helpers/test-file.js';

// Default settings: the reservation timeout minimum is the spec's 30 seconds.
const server = useTestServer();
const mq = useMqClient(server);
let queue: string;

beforeAll(async () => {
  queue = uniqueQueue('limits');
  await mq.createQueue(queue);
});
async function expectRefused(response: Promise<{ status: number; body: any }>, status: number, message: RegExp) {
  const answer = await response;
  expect(answer.status).toBe(status);
  expect(answer.body.msg).toMatch(message);
}

describe('reserve', () => {
  it('n: 1 to 100 (more is served as 100)', async () => {
    const path = mq.path(queue, '/reservations');
    await expectRefused(mq.http.post(path, { n: 0 }), 400, /^n must be at least 1/);
    await expectRefused(mq.http.post(path, { n: '5' }), 400, /^n must be an integer/);
    await mq.post(
      queue,
      Array.from({ length: 120 }, (_, i) => ({ body: `m${i}` })),
    );
    expect(await mq.reserve(queue, { n: 101, delete: true })).toHaveLength(100);
    expect(await mq.reserve(queue, { n: 100, delete: true })).toHaveLength(20);
  });

  it('timeout: 30 to 86400', async () => {
    const path = mq.path(queue, '/reservations');
    await expectRefused(mq.http.post(path, { timeout: 29 }), 400, /^timeout must be between 30 and 86400/);
    await expectRefused(mq.http.post(path, { timeout: 86401 }), 400, /^timeout must be between 30 and 86400/);
    await expectRefused(mq.http.post(path, { timeout: 'long' }), 400, /^timeout must be an integer/);
    expect((await mq.http.post(path, { timeout: 30 })).status).toBe(200);
    expect((await mq.http.post(path, { timeout: 86400 })).status).toBe(200);
  });

  it('wait: 0 or more (served up to 30); delete must be a boolean', async () => {
    const path = mq.path(queue, '/reservations');
    await expectRefused(mq.http.post(path, { wait: -1 }), 400, /^wait must be at least 0/);
    await expectRefused(mq.http.post(path, { delete: 'yes' }), 400, /^delete must be boolean/);
  });
});

describe('post', () => {
  const path = () => mq.path(queue, '/messages');

  it('messages and body are required', async () => {
    await expectRefused(mq.http.post(path(), {}), 406, /^messages is required/);
    await expectRefused(mq.http.post(path(), { messages: [{ delay: 1 }] }), 406, /^messages\[0\]\.body is required/);
    await expectRefused(mq.http.post(path(), { messages: [] }), 400, /^messages must NOT have fewer than 1 items/);
    await expectRefused(
      mq.http.post(path(), { messages: [{ body: 5 }] }),
      400,
      /^messages\[0\]\.body must be a string/,
    );
    await expectRefused(mq.http.post(path(), { messages: 'hello' }), 400, /^messages must be a list/);
  });

  it('delay: 0 to 604800', async () => {
    await expectRefused(
      mq.http.post(path(), { messages: [{ body: 'x', delay: 604801 }] }),
      400,
      /^messages\[0\]\.delay must be between 0 and 604800/,
    );
    await expectRefused(
      mq.http.post(path(), { messages: [{ body: 'x', delay: -1 }] }),
      400,
      /^messages\[0\]\.delay must be between 0 and 604800/,
    );
    await expectRefused(
      mq.http.post(path(), { messages: [{ body: 'x', delay: '5' }] }),
      400,
      /^messages\[0\]\.delay must be an integer/,
    );
    expect((await mq.http.post(path(), { messages: [{ body: 'x', delay: 604800 }] })).status).toBe(201);
  });

  it('push headers: at most 5, names 1-64 bytes and not reserved, values 1 byte to 1 KB', async () => {
    const post = (headers: unknown, at = 0) =>
      mq.http.post(path(), {
        messages: [...Array.from({ length: at }, () => ({ body: 'ok' })), { body: 'x', push_headers: headers }],
      });
    const five = Object.fromEntries(Array.from({ length: 5 }, (_, i) => [`H${i}`, 'v']));
    expect((await post(five)).status).toBe(201);
    await expectRefused(post({ ...five, H5: 'v' }), 400, /^messages\[0\]\.push_headers must have at most 5 headers/);
    expect((await post({ ['n'.repeat(64)]: 'v' })).status).toBe(201);
    await expectRefused(post({ ['n'.repeat(65)]: 'v' }), 400, /name must be at most 64 bytes/);
    await expectRefused(post({ ['é'.repeat(33)]: 'v' }), 400, /name must be an HTTP header name/);
    await expectRefused(post({ '': 'v' }), 400, /name must not be empty/);
    for (const reserved of RESERVED_PUSH_HEADERS) {
      await expectRefused(post({ [reserved]: 'v' }), 400, new RegExp(`"${reserved}": name is reserved`));
    }
    expect((await post({ Big: 'v'.repeat(1024) })).status).toBe(201);
    await expectRefused(post({ Big: 'v'.repeat(1025) }), 400, /value must be at most 1024 bytes/);
    await expectRefused(post({ Empty: '' }), 400, /value must not be empty/);
    await expectRefused(post({ Num: 5 }), 400, /value must be a string/);
    await expectRefused(post(['a']), 400, /^messages\[0\]\.push_headers must be an object$/);
    await expectRefused(post({ 'Content-Type': 'x' }, 2), 400, /^messages\[2\]\.push_headers/);
  });

  it('a refused batch posts nothing', async () => {
    const other = uniqueQueue('refused-batch');
    await mq.createQueue(other);
    const response = await mq.http.post(mq.path(other, '/messages'), {
      messages: [{ body: 'fine' }, { body: 'x', delay: 999999999 }],
    });
    expect(response.status).toBe(400);
    expect(await mq.info(other)).toMatchObject({ size: 0, total_messages: 0 });
  });
});

describe('other operations', () => {
  it('peek n: at least 1', async () => {
    await expectRefused(mq.http.get(mq.path(queue, '/messages?n=0')), 400, /^n must be at least 1/);
    await expectRefused(mq.http.get(mq.path(queue, '/messages?n=all')), 400, /^n must be an integer/);
  });

  it('batch delete: at most 100 messages, each with an id', async () => {
    const path = mq.path(queue, '/messages');
    const ids = Array.from({ length: 101 }, (_, i) => ({ id: String(i + 1) }));
    await expectRefused(mq.http.delete(path, { ids }), 400, /^ids must NOT have more than 100 items/);
    await expectRefused(mq.http.delete(path, { ids: [{ reservation_id: 'r' }] }), 406, /^ids\[0\]\.id is required/);
    await expectRefused(mq.http.delete(path, { ids: [] }), 400, /^ids must NOT have fewer than 1 items/);
    await expectRefused(mq.http.delete(path, { ids: ['1'] }), 400, /^ids\[0\] must be an object/);
  });

  it('release delay: 0 to 604800; touch timeout: 30 to 86400', async () => {
    const [id] = await mq.postBodies(queue, 'x');
    await expectRefused(
      mq.http.post(mq.path(queue, `/messages/${id}/release`), { reservation_id: 'r', delay: 604801 }),
      400,
      /^delay must be between 0 and 604800/,
    );
    await expectRefused(
      mq.http.post(mq.path(queue, `/messages/${id}/touch`), { reservation_id: 'r', timeout: 29 }),
      400,
      /^timeout must be between 30 and 86400/,
    );
    await expectRefused(
      mq.http.post(mq.path(queue, `/messages/${id}/touch`), { reservation_id: 5 }),
      400,
      /^reservation_id must be a string/,
    );
  });

  it('bodies that are not JSON objects are refused with 400', async () => {
    const response = await mq.http.request('POST', mq.path(queue, '/reservations'), {
      raw: 'n=5',
      headers: { 'Content-Type': 'text/plain' },
    });
    expect(response.status).toBe(400);
    expect(response.body.msg).toMatch(/body must be an object/);
    const list = await mq.http.post(mq.path(queue, '/reservations'), [1, 2]);
    expect(list.status).toBe(400);
  });
});
