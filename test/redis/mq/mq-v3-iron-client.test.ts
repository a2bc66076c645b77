import { describe, expect, it } from 'vitest';
import { callClient, useIronClient } from '../../helpers/iron-client.js';

// The platform's own Node client (iron_mq 0.9.x speaks queue v3), unchanged, pointed at Ferrum.
const session = useIronClient('iron_mq', { clientOptions: { queue_name: 'iron-default' } });
const call = callClient;

describe('iron_mq 0.9 client', () => {
  it('creates, updates, lists and deletes queues', async () => {
    const created = await call(session.client, 'create_queue', 'iron-orders', { message_timeout: 120 });
    expect(created.queue).toMatchObject({ name: 'iron-orders', message_timeout: 120, type: 'pull' });
    const updated = await call(session.client, 'update_queue', 'iron-orders', { message_expiration: 3600 });
    expect(updated.queue).toMatchObject({ message_timeout: 120, message_expiration: 3600, size: 0 });
    const queues = await call(session.client, 'queues', { per_page: 10 });
    expect(queues.map((queue: { name: string }) => queue.name)).toContain('iron-orders');
    const info = await call(session.client.queue('iron-orders'), 'info');
    expect(info).toMatchObject({ name: 'iron-orders', size: 0, total_messages: 0 });
    await call(session.client.queue('iron-orders'), 'del_queue');
    // The client reads `queue` out of error bodies too, so it can only say "Unknown error" here.
    await expect(call(session.client.queue('iron-orders'), 'info')).rejects.toThrow();
    expect((await session.server.http.get(`/3/projects/${session.server.projectId}/queues/iron-orders`)).body).toEqual({
      msg: 'Queue not found',
    });
  });

  it('posts, peeks, reserves, touches, releases and deletes messages', async () => {
    const queue = session.client.queue('iron-work');
    const ids: string[] = await call(queue, 'post', ['first', { body: 'second' }, 'third']);
    expect(ids).toHaveLength(3);
    const single: string = await call(queue, 'post', 'fourth');
    expect(single).toMatch(/^\d+$/);
    expect((await call(queue, 'info')).size).toBe(4);

    const peeked = await call(queue, 'peek', { n: 2 });
    expect(peeked.map((message: any) => message.body)).toEqual(['first', 'second']);
    const byId = await call(queue, 'msg_get', ids[1]);
    expect(byId).toMatchObject({ id: ids[1], body: 'second', reserved_count: 0 });

    const reserved = await call(queue, 'reserve', { n: 2, timeout: 60 });
    expect(reserved.map((message: any) => message.body)).toEqual(['first', 'second']);
    const [first, second] = reserved;
    const touched = await call(queue, 'msg_touch', first.id, first.reservation_id, { timeout: 90 });
    expect(touched.msg).toBe('Touched');
    await call(queue, 'msg_release', second.id, second.reservation_id, {});
    await call(queue, 'del', first.id, { reservation_id: touched.reservation_id });

    const next = await call(queue, 'get', { n: 1 });
    expect(next).toMatchObject({ id: second.id, body: 'second', reserved_count: 2 });
    const rest = await call(queue, 'reserve', { n: 5 });
    expect(rest.map((message: any) => message.body)).toEqual(['third', 'fourth']);
    await call(queue, 'del_multiple', {
      reservation_ids: [next, ...rest].map((message: any) => ({
        id: message.id,
        reservation_id: message.reservation_id,
      })),
    });
    expect((await call(queue, 'info')).size).toBe(0);
  });

  it('deletes by id, clears, waits (long-poll) and reports errors as the client expects', async () => {
    const queue = session.client.queue('iron-misc');
    const ids: string[] = await call(queue, 'post', ['a', 'b', 'c']);
    await call(queue, 'del_multiple', { ids: [ids[0]] });
    expect((await call(queue, 'info')).size).toBe(2);
    await call(queue, 'clear');
    expect((await call(queue, 'info')).size).toBe(0);
    const started = Date.now();
    const nothing = await call(queue, 'reserve', { n: 1, wait: 1 });
    expect(nothing).toBeUndefined();
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    const [reservedLater] = await Promise.all([
      call(queue, 'reserve', { n: 1, wait: 5 }),
      // eslint-disable-next-line no-restricted-syntax -- the post must come after the client began its long-poll reserve
      new Promise((resolve) => setTimeout(resolve, 200)).then(() => call(queue, 'post', 'late')),
    ]);
    expect(reservedLater.body).toBe('late');
    await expect(call(session.client.queue('iron-missing'), 'reserve', { n: 1 })).rejects.toThrow('Queue not found');
    await expect(call(queue, 'del', reservedLater.id, {})).rejects.toThrow(/reservation_id/);
  });

  it('manages the subscribers of a push queue', async () => {
    await call(session.client, 'create_queue', 'iron-push', {
      type: 'multicast',
      push: { subscribers: [{ name: 'a', url: 'http://127.0.0.1:9/a' }] },
    });
    const queue = session.client.queue('iron-push');
    await call(queue, 'add_subscribers', { name: 'b', url: 'http://127.0.0.1:9/b' });
    expect((await call(queue, 'info')).push.subscribers.map((subscriber: any) => subscriber.name)).toEqual(['a', 'b']);
    await call(queue, 'rm_subscribers', { name: 'a' });
    await call(queue, 'rpl_subscribers', [{ name: 'c', url: 'http://127.0.0.1:9/c' }]);
    expect((await call(queue, 'info')).push.subscribers).toEqual([{ name: 'c', url: 'http://127.0.0.1:9/c' }]);
  });
});
