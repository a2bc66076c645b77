import { describe, expect, it } from 'vitest';
import { MqClient, uniqueQueue } from '../../helpers/mq.js';
import { useTestServer } from '../../helpers/test-file.js';
import { madeOnFirstUse } from '../../helpers/read-through.js';
import { scaled } from '../../helpers/pace.js';
import { expectHealthyAndIntact, useTenant, useVictim } from '../../helpers/adversarial/tenant-data.js';

// Ack-and-next (`delete_reserved` on a v3 reserve) as a hostile tenant uses it: each entry is
// deleted only in the queue of the request, only under the reservation that holds it, and the
// list is bounded and checked before anything is deleted or reserved (src/mq/messages/reservation.ts,
// reserve.lua).
const server = useTestServer();
const victim = useVictim(server);
const hostile = useTenant(server, 'hostile');
const victimMq = madeOnFirstUse(() => new MqClient(victim.http, victim.projectId));
const hostileMq = madeOnFirstUse(() => new MqClient(hostile.http, hostile.projectId));

const refOf = (message: any) => ({ id: message.id, reservation_id: message.reservation_id });

function reserveWith(mq: MqClient, queue: string, deleteReserved: unknown) {
  return mq.http.post(mq.path(queue, '/reservations'), { n: 1, delete_reserved: deleteReserved });
}

describe('delete_reserved as an attack', () => {
  it("another tenant's reserved message, by its id and reservation id, is not found and still held", async () => {
    const queue = uniqueQueue('shared-name');
    await victimMq.postBodies(queue, 'theirs');
    const [theirs] = await victimMq.reserve(queue, { n: 1, timeout: 60 });
    await hostileMq.postBodies(queue, 'mine');
    const attempt = await reserveWith(hostileMq, queue, [refOf(theirs)]);
    expect(attempt.status).toBe(200);
    expect(attempt.body).toMatchObject({ deleted: 0, not_deleted: [{ id: theirs.id, msg: 'Message not found' }] });
    expect((await victimMq.delete(queue, theirs.id, theirs.reservation_id)).status).toBe(200);
  });

  it("another queue's message of the same project is not found there", async () => {
    const [a, b] = [uniqueQueue('qa'), uniqueQueue('qb')];
    await hostileMq.postBodies(a, 'in a');
    await hostileMq.postBodies(b, 'in b');
    const [held] = await hostileMq.reserve(a, { n: 1, timeout: 60 });
    const attempt = await reserveWith(hostileMq, b, [refOf(held)]);
    expect(attempt.body).toMatchObject({ deleted: 0, not_deleted: [{ id: held.id, msg: 'Message not found' }] });
    expect((await hostileMq.info(a)).size).toBe(1);
    expect(attempt.body.messages.map((message: any) => message.body)).toEqual(['in b']);
  });

  it("someone else's reservation of the message (a guessed reservation id) deletes nothing", async () => {
    const queue = uniqueQueue('guess');
    await hostileMq.postBodies(queue, 'held');
    const [held] = await hostileMq.reserve(queue, { n: 1, timeout: 60 });
    const attempt = await reserveWith(hostileMq, queue, [{ id: held.id, reservation_id: 'guessed' }]);
    expect(attempt.body.deleted).toBe(0);
    expect(attempt.body.not_deleted).toHaveLength(1);
    expect(attempt.body.not_deleted[0].msg).toMatch(/reservation/i);
    expect((await hostileMq.delete(queue, held.id, held.reservation_id)).status).toBe(200);
  });

  it('the same id many times, 10,000 entries, non-string ids, a lone surrogate: 4xx naming them, nothing deleted', async () => {
    const queue = uniqueQueue('shapes');
    await hostileMq.postBodies(queue, 'kept');
    const [held] = await hostileMq.reserve(queue, { n: 1, timeout: 60 });
    const many = Array.from({ length: 10_000 }, (_, i) => ({ id: String(i), reservation_id: 'r' }));
    const cases: [unknown, string][] = [
      [Array.from({ length: 50 }, () => refOf(held)), 'delete_reserved[1].id repeats'],
      // Past the reserve's body limit long before the schema's 100 entries are counted.
      [many, 'too large'],
      [[{ id: { $ne: '' }, reservation_id: 'r' }], 'delete_reserved[0].id'],
      [[{ id: ['a'], reservation_id: 'r' }], 'delete_reserved[0].id'],
      [[{ id: held.id, reservation_id: 12 }], 'delete_reserved[0].reservation_id'],
      [[{ id: '\ud800', reservation_id: 'r' }], 'delete_reserved[0].id'],
      [[{ id: held.id, reservation_id: 'r\udfff' }], 'delete_reserved[0].reservation_id'],
    ];
    for (const [deleteReserved, named] of cases) {
      const started = Date.now();
      const refused = await reserveWith(hostileMq, queue, deleteReserved);
      expect(refused.status, JSON.stringify(deleteReserved).slice(0, 60)).toBeGreaterThanOrEqual(400);
      expect(refused.status).toBeLessThan(500);
      expect(refused.body.msg).toContain(named);
      expect(Date.now() - started).toBeLessThan(scaled(2000));
    }
    expect((await hostileMq.delete(queue, held.id, held.reservation_id)).status).toBe(200);
    await expectHealthyAndIntact(server, victim);
  });
});
