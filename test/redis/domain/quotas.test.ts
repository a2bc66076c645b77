import { beforeAll, describe, expect, it } from 'vitest';
import { quotasOf, type Quotas } from '../../../src/auth/quotas.js';
import { CacheStore, type NewItem } from '../../../src/cache/cache-store.js';
import { EventBus } from '../../../src/core/bus.js';
import { ProjectStorage } from '../../../src/auth/stored-bytes.js';
import { MessageQueue } from '../../../src/mq/message-queue.js';
import { useSharedRedis } from '../../helpers/shared-redis.js';

// Project quotas as the domain enforces them, on the worker's shared Redis (no HTTP).
const shared = useSharedRedis();
let cache: CacheStore;
let mq: MessageQueue;
let storage: ProjectStorage;
const silent = { info: () => undefined, warn: () => undefined };
const value = (text: string): NewItem => ({ json: JSON.stringify(text), expiresIn: 0, condition: { kind: 'always' } });

beforeAll(() => {
  cache = new CacheStore(shared.redis, shared.keys);
  storage = new ProjectStorage(shared.redis, shared.keys);
  mq = new MessageQueue({
    redis: shared.redis,
    keys: shared.keys,
    bus: new EventBus(shared.connect('subscriber'), shared.redis),
    log: silent,
    minTimeoutSeconds: 1,
  });
});

describe('project quotas', () => {
  it("takes the project's own quotas over the operator's defaults, one by one", () => {
    const defaults = { stored_bytes: 100, queue_bytes: 10, queues: 5, caches: 5 } as Quotas;
    expect(quotasOf({ quotas: { queues: 1 } }, defaults)).toEqual({ ...defaults, queues: 1 });
    expect(quotasOf({ quotas: {} }, defaults)).toEqual(defaults);
  });

  it('a put into one cache too many is 403 naming the quota, and creates nothing', async () => {
    const quotas = { storedBytes: 1_000_000, caches: 2 };
    await cache.put('caches-project', 'one', 'k', value('v'), quotas);
    await cache.put('caches-project', 'two', 'k', value('v'), quotas);
    await expect(cache.put('caches-project', 'three', 'k', value('v'), quotas)).rejects.toMatchObject({
      statusCode: 403,
      message: expect.stringMatching(/^quota caches reached: the project may have at most 2 caches/),
    });
    await expect(cache.increment('caches-project', 'three', 'n', 1, quotas)).rejects.toMatchObject({ statusCode: 403 });
    expect(await cache.size('caches-project', 'three')).toBeNull();
    // Writing to an existing cache is no new cache.
    await cache.put('caches-project', 'one', 'other', value('v'), quotas);
    expect(await cache.size('caches-project', 'one')).toBe(2);
  });

  it('stored_bytes counts cache items and message bodies together, and frees what is deleted', async () => {
    const project = 'bytes-project';
    const quotas = { storedBytes: 100, caches: 10 };
    await cache.put(project, 'c', 'big', value('x'.repeat(60)), quotas);
    expect(await storage.total(project)).toBeGreaterThanOrEqual(60);
    const mqQuotas = { queues: 10, queueBytes: 1_000, storedBytes: 100 };
    await expect(
      mq.post({ projectId: project, name: 'q' }, [{ body: 'y'.repeat(60) }], mqQuotas),
    ).rejects.toMatchObject({ statusCode: 413, message: expect.stringMatching(/^quota stored_bytes reached/) });
    await expect(cache.put(project, 'c', 'more', value('z'.repeat(60)), quotas)).rejects.toMatchObject({
      statusCode: 413,
    });

    expect(await cache.deleteItem(project, 'c', 'big')).toBe(true);
    await mq.post({ projectId: project, name: 'q' }, [{ body: 'y'.repeat(60) }], mqQuotas);
    expect(await storage.messages.total(project, true)).toBe(60);
  });
});
