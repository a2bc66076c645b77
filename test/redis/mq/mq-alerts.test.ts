import { describe, expect, it } from 'vitest';
import { useMqClient, uniqueQueue } from '../../helpers/mq.js';
import { useMqV1Client } from '../../helpers/mq-v1.js';
import { useTestServer } from '../../helpers/test-file.js';
import { scriptClock } from '../../../src/core/lua.js';

const server = useTestServer();
const v3 = useMqClient(server);
const v1 = useMqV1Client(server);
/** A source queue with one alert (v3 create) and its own target queue. */
async function alerted(
  label: string,
  alert: Record<string, unknown>,
): Promise<{ source: string; target: string; id: string }> {
  const source = uniqueQueue(label);
  const target = `${source}-alerts`;
  const created = await v3.createQueue(source, { alerts: [{ ...alert, queue: target }] });
  expect(created.status).toBe(200);
  return { source, target, id: created.body.queue.alerts[0].id };
}

/** The alert messages on a target queue, parsed (empty when the queue does not exist yet). */
async function alertsOn(target: string): Promise<any[]> {
  const response = await server.http.get(v3.path(target, '/messages?n=100'));
  if (response.status === 404) return [];
  return response.body.messages.map((message: any) => JSON.parse(message.body));
}

async function deleteOne(queue: string): Promise<void> {
  const [message] = await v3.peek(queue, 1);
  expect((await v3.delete(queue, message.id)).status).toBe(200);
}

describe('alerts fire when the size crosses the trigger', () => {
  it('fixed asc: once when the size reaches the trigger from below, with the alert message fields', async () => {
    const { source, target, id } = await alerted('fixed-asc', { type: 'fixed', trigger: 3 });
    await v3.postBodies(source, '1', '2');
    expect(await alertsOn(target)).toEqual([]);
    await v3.postBodies(source, '3');
    await v3.postBodies(source, '4');
    const fired = await alertsOn(target);
    expect(fired).toEqual([
      {
        source_queue: source,
        queue_size: 3,
        alert_id: id,
        alert_type: 'fixed',
        alert_direction: 'asc',
        alert_trigger: 3,
        created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      },
    ]);
    await deleteOne(source);
    await deleteOne(source); // size 2: below again
    await v3.postBodies(source, 'again'); // crosses once more (snooze 0)
    expect(await alertsOn(target)).toHaveLength(2);
  });

  it('fixed desc: when the size drops to the trigger from above (delete, reserve with delete, clear)', async () => {
    const { source, target } = await alerted('fixed-desc', { type: 'fixed', trigger: 2, direction: 'desc' });
    await v3.postBodies(source, '1', '2', '3');
    expect(await alertsOn(target)).toEqual([]);
    await deleteOne(source);
    expect((await alertsOn(target)).map((alert) => [alert.alert_direction, alert.queue_size])).toEqual([['desc', 2]]);
    await v3.postBodies(source, '4', '5');
    await v3.reserve(source, { n: 2, delete: true });
    expect((await alertsOn(target)).map((alert) => alert.queue_size)).toEqual([2, 2]);
    await v3.postBodies(source, '6');
    expect((await server.http.delete(v3.path(source, '/messages'), {})).body.msg).toBe('Cleared');
    expect((await alertsOn(target)).map((alert) => alert.queue_size)).toEqual([2, 2, 0]);
  });

  it('progressive asc: at every multiple of the trigger', async () => {
    const { source, target } = await alerted('prog-asc', { type: 'progressive', trigger: 2 });
    for (let i = 1; i <= 5; i++) await v3.postBodies(source, String(i));
    expect((await alertsOn(target)).map((alert) => alert.queue_size)).toEqual([2, 4]);
    await v3.postBodies(source, '6', '7', '8', '9'); // 5 -> 9 crosses 6 and 8: one alert for the change
    expect((await alertsOn(target)).map((alert) => alert.queue_size)).toEqual([2, 4, 9]);
  });

  it('progressive desc: at every multiple of the trigger going down, never at 0', async () => {
    const { source, target } = await alerted('prog-desc', { type: 'progressive', trigger: 2, direction: 'desc' });
    await v3.postBodies(source, '1', '2', '3', '4', '5');
    for (let i = 0; i < 5; i++) await deleteOne(source);
    expect((await alertsOn(target)).map((alert) => [alert.alert_type, alert.queue_size])).toEqual([
      ['progressive', 4],
      ['progressive', 2],
    ]);
  });

  it('snooze: at most one alert per snooze period', async () => {
    const { source, target } = await alerted('snooze', { type: 'fixed', trigger: 1, snooze: 1 });
    await v3.postBodies(source, 'a');
    await deleteOne(source);
    await v3.postBodies(source, 'b'); // crossed again within the snooze: no alert
    expect(await alertsOn(target)).toHaveLength(1);
    scriptClock.advance(1100);
    await deleteOne(source);
    await v3.postBodies(source, 'c');
    expect(await alertsOn(target)).toHaveLength(2);
  });

  it('concurrent posts crossing the trigger fire exactly once', async () => {
    const { source, target } = await alerted('concurrent', { type: 'fixed', trigger: 10 });
    await Promise.all(Array.from({ length: 30 }, (_, i) => v3.postBodies(source, String(i))));
    expect(await alertsOn(target)).toHaveLength(1);
  });

  it('alerts set on a queue that already has messages start from its current size', async () => {
    const source = uniqueQueue('existing');
    await v3.postBodies(source, '1', '2', '3', '4', '5');
    await v3.createQueue(source, { alerts: [{ type: 'fixed', trigger: 3, queue: `${source}-alerts` }] });
    await v3.postBodies(source, '6');
    expect(await alertsOn(`${source}-alerts`)).toEqual([]);
  });
});

describe.concurrent('v3 alert rules', () => {
  const base = { type: 'fixed', trigger: 5, queue: 'alert-target' };
  const cases: Array<[string, unknown, RegExp]> = [
    ['more than five', [1, 2, 3, 4, 5, 6].map((trigger) => ({ ...base, trigger })), /at most 5 alerts/],
    ['duplicates', [base, { ...base }], /alerts\[1\] duplicates another alert/],
    ['trigger 0', [{ ...base, trigger: 0 }], /queue\.alerts\[0\]\.trigger must be at least 1/],
    ['trigger not an integer', [{ ...base, trigger: 'x' }], /trigger must be an integer/],
    ['unknown type', [{ ...base, type: 'sometimes' }], /type must be one of: fixed, progressive/],
    ['unknown direction', [{ ...base, direction: 'up' }], /direction must be one of: asc, desc/],
    ['negative snooze', [{ ...base, snooze: -1 }], /snooze must be at least 0/],
    ['no target queue', [{ type: 'fixed', trigger: 5 }], /queue\.alerts\[0\]\.queue is required/],
    ['not a list', { type: 'fixed' }, /queue\.alerts must be a list/],
  ];
  for (const [label, alerts, msg] of cases) {
    it(label, async () => {
      const response = await v3.createQueue(uniqueQueue('rules'), { alerts });
      expect(response.status).toBeGreaterThanOrEqual(400);
      expect(response.status).toBeLessThan(500);
      expect(response.body.msg).toMatch(msg);
    });
  }

  it('the target must be another queue; none on push queues', async () => {
    const queue = uniqueQueue('self');
    expect((await v3.createQueue(queue, { alerts: [{ ...base, queue }] })).body.msg).toMatch(/must name another queue/);
    const push = await v3.createQueue(uniqueQueue('push'), {
      type: 'multicast',
      push: { subscribers: [{ name: 's', url: 'http://127.0.0.1:9/' }] },
      alerts: [base],
    });
    expect(push.status).toBe(400);
  });

  it('an alert kept in an update keeps its id', async () => {
    const queue = uniqueQueue('keep-id');
    const created = await v3.createQueue(queue, { alerts: [base] });
    const updated = await v3.updateQueue(queue, { alerts: [base, { ...base, trigger: 9 }] });
    expect(updated.body.queue.alerts[0].id).toBe(created.body.queue.alerts[0].id);
    expect(updated.body.queue.alerts[1].id).not.toBe(created.body.queue.alerts[0].id);
  });
});

describe.concurrent('v1 alert endpoints', () => {
  const alert = (trigger: number) => ({
    type: 'progressive',
    trigger,
    direction: 'asc',
    queue: 'v1-alert-target',
    snooze: 0,
  });

  it('add, replace, delete by list and by id', async () => {
    const queue = uniqueQueue('v1-alerts');
    await v1.post(queue, [{ body: 'x' }]);
    const added = await server.http.post(v1.path(queue, '/alerts'), { alerts: [alert(10), alert(20)] });
    expect(added.status).toBe(200);
    expect(added.body.alerts).toEqual([
      { ...alert(10), id: expect.stringMatching(/^[0-9a-f]{24}$/) },
      { ...alert(20), id: expect.stringMatching(/^[0-9a-f]{24}$/) },
    ]);
    const duplicate = await server.http.post(v1.path(queue, '/alerts'), { alerts: [alert(10)] });
    expect(duplicate.status).toBe(400);
    expect(duplicate.body.msg).toMatch(/duplicates an alert the queue has/);
    const more = await server.http.post(v1.path(queue, '/alerts'), {
      alerts: [alert(30), alert(40), alert(50), alert(60)],
    });
    expect(more.status).toBe(400);
    expect(more.body.msg).toMatch(/at most 5/);

    const replaced = await server.http.put(v1.path(queue, '/alerts'), { alerts: [alert(20), alert(30), alert(40)] });
    expect(replaced.body.alerts.map((a: any) => a.trigger)).toEqual([20, 30, 40]);
    expect(replaced.body.alerts[0].id).toBe(added.body.alerts[1].id);
    const [, second, third] = replaced.body.alerts;
    const removed = await server.http.delete(v1.path(queue, '/alerts'), { alerts: [{ id: second.id }] });
    expect(removed.body.alerts.map((a: any) => a.trigger)).toEqual([20, 40]);
    const byId = await server.http.delete(v1.path(queue, `/alerts/${third.id}`));
    expect(byId.body.alerts.map((a: any) => a.trigger)).toEqual([20]);
    const again = await server.http.delete(v1.path(queue, `/alerts/${third.id}`));
    expect(again.status).toBe(404);
    expect(again.body.msg).toMatch(/Alert not found/);
    expect((await v3.info(queue)).alerts.map((a: any) => a.trigger)).toEqual([20]);
    await server.http.put(v1.path(queue, '/alerts'), { alerts: [] });
    expect((await v3.info(queue)).alerts).toBeUndefined();
  });

  it('bad input and the wrong queues', async () => {
    const queue = uniqueQueue('v1-alerts-bad');
    await v1.post(queue, [{ body: 'x' }]);
    const missingField = await server.http.post(v1.path(queue, '/alerts'), {});
    expect(missingField.status).toBe(406);
    expect(missingField.body.msg).toMatch(/alerts is required/);
    const badTrigger = await server.http.post(v1.path(queue, '/alerts'), { alerts: [{ ...alert(1), trigger: -3 }] });
    expect(badTrigger.body.msg).toMatch(/alerts\[0\]\.trigger must be at least 1/);
    const badDelete = await server.http.delete(v1.path(queue, '/alerts'), { alerts: [{}] });
    expect(badDelete.status).toBe(406);
    expect(badDelete.body.msg).toMatch(/alerts\[0\]\.id is required/);
    expect((await server.http.post(v1.path(uniqueQueue('missing'), '/alerts'), { alerts: [alert(1)] })).status).toBe(
      404,
    );
    const push = uniqueQueue('v1-alerts-push');
    await v1.update(push, { subscribers: [{ url: 'http://127.0.0.1:9/' }] });
    const onPush = await server.http.post(v1.path(push, '/alerts'), { alerts: [alert(1)] });
    expect(onPush.status).toBe(400);
    expect(onPush.body.msg).toMatch(/push queue/);
  });
});
