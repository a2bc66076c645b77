import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EventBus } from '../../../src/core/bus.js';
import type { FeatureFlags } from '../../../src/core/features/storage-features.js';
import { MessageQueue } from '../../../src/mq/message-queue.js';
import type { QueueRef } from '../../../src/mq/scripts.js';
import { releaseLua } from '../../helpers/release-lua.js';
import { useSharedRedis } from '../../helpers/shared-redis.js';

// With the storage flag plain_messages off, this release writes messages as release f89fce9 does
// (an expiry entry each, a plain rid field, no plain_expiration_ms), and f89fce9's own scripts
// (read from git by test/helpers/release-lua.ts) reserve, read and delete them beside it on the same keys: nothing is lost.
const shared = useSharedRedis();
const silent = { info: () => undefined, warn: () => undefined };
const flag = { plain: false };
const features: FeatureFlags = { enabled: () => flag.plain };
let mq: MessageQueue;

// Release f89fce9's own MQ scripts, read from git.
const oldScript = (name: string) => releaseLua('f89fce9', 'src/mq', name, ['src/mq', 'src/core/clock.lua']);
const old = {
  post: oldScript('post-messages'),
  reserve: oldScript('reserve'),
  remove: oldScript('delete-messages'),
  read: oldScript('read-message'),
  peek: oldScript('peek'),
  release: oldScript('release'),
};
const WEEK_MS = 7 * 24 * 3600 * 1000;

interface OldReserved {
  expired: number;
  messages: [string, string, number, string, string, number][];
}

const queue = (name: string): QueueRef => ({ projectId: 'flags', name });
const keysOf = (ref: QueueRef) => mq.keys.queue(ref);
const key = (ref: QueueRef, part: string) =>
  mq.keys.queue(ref)[['queue', 'ready', 'delayed', 'reserved', 'expiry', 'body', 'count', 'rid'].indexOf(part)]!;

async function oldReserve(ref: QueueRef, n: number): Promise<OldReserved> {
  const reply = await old.reserve.run<string>(shared.redis, keysOf(ref), [n, 30, '0', 'old', 60]);
  return JSON.parse(reply) as OldReserved;
}
/** f89fce9's delete takes one JSON list of [id, reservation id]. */
const oldDelete = (ref: QueueRef, ids: string[], rids: string[]) =>
  old.remove.run<number[]>(shared.redis, keysOf(ref), [JSON.stringify(ids.map((id, i) => [id, rids[i]]))]);
const oldRead = (ref: QueueRef, id: string) => old.read.run<unknown[]>(shared.redis, keysOf(ref), [id, 60]);

beforeAll(() => {
  const bus = new EventBus(shared.connect('subscriber'), shared.redis);
  mq = new MessageQueue({ redis: shared.redis, keys: shared.keys, bus, log: silent, minTimeoutSeconds: 1, features });
});
afterAll(() => mq?.close());

describe('plain_messages off: what release f89fce9 reads', () => {
  it('a post writes an expiry entry per message and no plain_expiration_ms, as f89fce9’s post does', async () => {
    flag.plain = false;
    const ours = queue('ours');
    const theirs = queue('theirs');
    const ids = await mq.post(ours, [{ body: 'a' }, { body: 'b' }]);
    await old.post.run(shared.redis, keysOf(theirs), [
      604800,
      'wake',
      JSON.stringify([
        ['1', 'x', 0, '', 0, 0, 0],
        ['2', 'y', 0, '', 0, 0, 0],
      ]),
      '0',
    ]);
    const record = await shared.redis.hgetall(key(ours, 'queue'));
    const theirRecord = await shared.redis.hgetall(key(theirs, 'queue'));
    expect(record.plain_expiration_ms).toBeUndefined();
    // The same fields but the byte count (which f89fce9 does not keep and never reads).
    expect(
      Object.keys(record)
        .filter((field) => field !== 'bytes')
        .sort(),
    ).toEqual(Object.keys(theirRecord).sort());
    for (const ref of [ours, theirs]) {
      const ready = await shared.redis.zrange(key(ref, 'ready'), 0, -1, 'WITHSCORES');
      const expiry = await shared.redis.zrange(key(ref, 'expiry'), 0, -1, 'WITHSCORES');
      expect(expiry.length).toBe(ready.length);
      for (let i = 0; i < ready.length; i += 2) {
        const at = expiry.indexOf(ready[i]!);
        expect(Number(expiry[at + 1])).toBe(Number(ready[i + 1]) + WEEK_MS);
      }
    }
    expect((await oldReserve(ours, 5)).messages.map((message) => message[0])).toEqual(ids);
  });

  it('posted and reserved here, reserved and deleted by f89fce9: every acknowledged message is there', async () => {
    flag.plain = false;
    const ref = queue('side-by-side');
    const bodies = Array.from({ length: 20 }, (_, i) => ({ body: `m${i}` }));
    const ids = await mq.post(ref, bodies);
    const ours = (await mq.reserve(ref, { n: 5, timeout: 30, wait: 0 })).messages;
    const rids = await shared.redis.hmget(key(ref, 'rid'), ...ours.map((message) => message.id));
    expect(rids.every((rid) => rid && !rid.includes('@'))).toBe(true);
    const theirs = await oldReserve(ref, 100);
    expect(theirs.expired).toBe(0);
    expect(theirs.messages).toHaveLength(15);
    const deleted = await oldDelete(
      ref,
      [...ours.map((message) => message.id), ...theirs.messages.map((message) => message[0])],
      [...ours.map((message) => message.reservationId), ...theirs.messages.map((message) => message[3])],
    );
    expect(deleted[0]).toBe(0);
    expect(new Set([...ours.map((m) => m.id), ...theirs.messages.map((m) => m[0])])).toEqual(new Set(ids));
    expect(await shared.redis.zcard(key(ref, 'expiry'))).toBe(0);
  });

  it('ack-and-next beside f89fce9: its reservations are deleted by our reserve, ours by its delete', async () => {
    flag.plain = false;
    const ref = queue('ack-and-next');
    const ids = await mq.post(
      ref,
      [1, 2, 3, 4].map((i) => ({ body: `a${i}` })),
    );
    const theirs = (await oldReserve(ref, 2)).messages;
    const next = await mq.reserve(ref, {
      n: 2,
      timeout: 30,
      deleteReserved: theirs.map((message) => ({ id: message[0], reservationId: message[3] })),
    });
    expect(next.deleteOutcomes).toEqual([0, 0]);
    expect(next.messages.map((message) => message.id)).toEqual(ids.slice(2));
    const deleted = await oldDelete(
      ref,
      next.messages.map((message) => message.id),
      next.messages.map((message) => message.reservationId),
    );
    expect(deleted[0]).toBe(0);
    for (const part of ['ready', 'reserved', 'expiry']) expect(await shared.redis.zcard(key(ref, part))).toBe(0);
  });

  it('a rollback: f89fce9 peeks, gets by id, reserves and counts what this release posted', async () => {
    flag.plain = false;
    const ref = queue('rollback');
    const ids = await mq.post(
      ref,
      [1, 2, 3, 4, 5].map((i) => ({ body: `r${i}` })),
    );
    const peeked = JSON.parse(await old.peek.run<string>(shared.redis, keysOf(ref), [10, 60])) as OldReserved;
    expect(peeked.messages.map((message) => message[0])).toEqual(ids);
    for (const id of ids) expect((await oldRead(ref, id))[0]).toBe(0);
    const reserved = await oldReserve(ref, 10);
    expect(reserved.messages.map((message) => message[0])).toEqual(ids);
    expect(await shared.redis.zcard(key(ref, 'reserved'))).toBe(5);
  });

  it('plain messages an earlier start wrote (flag on) are given an entry as they are reserved or touched with it off', async () => {
    flag.plain = true;
    const ref = queue('converted');
    const ids = await mq.post(ref, [{ body: 'p1' }, { body: 'p2' }, { body: 'p3' }]);
    expect(await shared.redis.zcard(key(ref, 'expiry'))).toBe(0);
    const [touched] = (await mq.reserve(ref, { n: 1, timeout: 30, wait: 0 })).messages;
    expect(await shared.redis.hget(key(ref, 'rid'), touched!.id)).toContain('@');
    flag.plain = false;
    const renewed = await mq.touch(ref, touched!.id, touched!.reservationId, 30);
    expect(await shared.redis.hget(key(ref, 'rid'), touched!.id)).toBe(renewed.reservationId);
    const [taken] = (await mq.reserve(ref, { n: 1, timeout: 30, wait: 0 })).messages;
    expect(await shared.redis.hget(key(ref, 'rid'), taken!.id)).toBe(taken!.reservationId);
    const entries = await shared.redis.zmscore(key(ref, 'expiry'), touched!.id, taken!.id);
    expect(entries.every((score) => Number(score) > Date.now())).toBe(true);
    // f89fce9 deletes both by their reservations and reads them up to then.
    expect((await oldRead(ref, taken!.id))[0]).toBe(0);
    const outcome = await oldDelete(ref, [touched!.id, taken!.id], [renewed.reservationId, taken!.reservationId]);
    expect(outcome[0]).toBe(0);
    expect(await mq.peek(ref, 10)).toEqual([expect.objectContaining({ id: ids[2] })]);
  });

  it('with it on again, posts are plain and both layouts are still read', async () => {
    flag.plain = false;
    const ref = queue('both');
    const [indexed] = await mq.post(ref, [{ body: 'old layout' }]);
    flag.plain = true;
    await mq.reserve(ref, { n: 1, timeout: 30, wait: 0 });
    const [plain] = await mq.post(ref, [{ body: 'new layout' }]);
    expect(await shared.redis.zscore(key(ref, 'expiry'), plain!)).toBeNull();
    expect((await mq.get(ref, indexed!)).body).toBe('old layout');
    expect((await mq.get(ref, plain!)).body).toBe('new layout');
  });
});
