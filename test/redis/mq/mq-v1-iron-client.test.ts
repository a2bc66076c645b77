import { describe, expect, it } from 'vitest';
import { MqClient } from '../../helpers/mq.js';
import { callClient, useIronClient } from '../../helpers/iron-client.js';

// The platform's own Node client of the version 1 API (iron_mq 0.2.x, installed as iron_mq_v1), unchanged.
const session = useIronClient('iron_mq_v1', { clientOptions: { queue_name: 'v1-default' } });
const call = callClient;

describe('iron_mq 0.2 client (version 1 API)', () => {
  it('posts, gets, touches, releases, peeks and deletes messages', async () => {
    const queue = session.client.queue('v1-client-orders');
    const id = await call(queue, 'post', { body: 'order 1', timeout: 90 });
    expect(id).toMatch(/^\d+$/);
    const ids = await call(queue, 'post', ['order 2', 'order 3']);
    expect(ids).toHaveLength(2);
    expect(await call(queue, 'info')).toMatchObject({ name: 'v1-client-orders', size: 3 });
    const peeked = await call(queue, 'peek', { n: 3 });
    expect(peeked.map((message: any) => message.body)).toEqual(['order 1', 'order 2', 'order 3']);
    const got = await call(queue, 'get', {});
    expect(got).toMatchObject({ id, body: 'order 1', timeout: 90 });
    expect(await call(queue, 'msg_touch', id)).toEqual({ msg: 'Touched' });
    expect(await call(queue, 'msg_release', id, {})).toEqual({ msg: 'Released' });
    expect(await call(queue, 'msg_get', id)).toMatchObject({ id, body: 'order 1' });
    const all = await call(queue, 'get', { n: 3 });
    expect(all.map((message: any) => message.body)).toEqual(['order 1', 'order 2', 'order 3']);
    expect(await call(queue, 'del', id)).toEqual({ msg: 'Deleted' });
    expect(await call(queue, 'del_multiple', ids)).toEqual({ msg: 'Deleted' });
    expect((await call(queue, 'info')).size).toBe(0);
  });

  it('a message posted by the v1 client is reserved through v3', async () => {
    const queue = session.client.queue('v1-client-shared');
    const id = await call(queue, 'post', 'shared');
    const v3 = new MqClient(session.server.http, session.server.projectId);
    expect(await v3.reserve('v1-client-shared')).toEqual([expect.objectContaining({ id, body: 'shared' })]);
  });

  it('lists, updates (push and back to pull), subscribers, alerts, clear and delete', async () => {
    const queue = session.client.queue('v1-client-admin');
    await call(queue, 'post', 'x');
    const queues = await call(session.client, 'queues', { page: 0 });
    expect(queues.map((entry: any) => entry.name)).toContain('v1-client-admin');
    const alerts = await call(queue, 'add_alerts', [{ type: 'fixed', trigger: 10, queue: 'v1-client-alerts' }]);
    expect(alerts.alerts).toHaveLength(1);
    expect((await call(queue, 'delete_alert_by_id', alerts.alerts[0].id)).alerts).toBeUndefined();
    const pushed = await call(queue, 'update', {
      push_type: 'unicast',
      subscribers: [{ url: 'http://127.0.0.1:9/a' }],
    });
    expect(pushed).toMatchObject({ push_type: 'unicast', subscribers: [{ url: 'http://127.0.0.1:9/a' }] });
    const added = await call(queue, 'add_subscribers', [{ url: 'http://127.0.0.1:9/b' }]);
    expect(added.subscribers).toHaveLength(2);
    expect((await call(queue, 'rm_subscribers', [{ url: 'http://127.0.0.1:9/a' }])).subscribers).toEqual([
      { url: 'http://127.0.0.1:9/b' },
    ]);
    expect((await call(queue, 'update', { push_type: 'pull' })).push_type).toBe('pull');
    expect(await call(queue, 'clear')).toEqual({ msg: 'Cleared' });
    expect(await call(queue, 'del_queue')).toEqual({ msg: 'Deleted.' });
    await expect(call(queue, 'info')).rejects.toThrow(/Queue not found/);
  });
});
