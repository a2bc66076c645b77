import { afterEach, describe, expect, it } from 'vitest';
import { EventBus } from '../../../src/core/bus.js';
import { HttpError } from '../../../src/core/errors.js';
import { FeatureAdmin } from '../../../src/core/features/feature-admin.js';
import { KNOWN_FEATURES } from '../../../src/core/features/feature-registry.js';
import { FeatureStore } from '../../../src/core/features/feature-store.js';
import { StorageFeatures, UnknownFeatureError } from '../../../src/core/features/storage-features.js';
import { KeySpace } from '../../../src/core/redis.js';
import { VERSION } from '../../../src/core/version.js';
import { eventually } from '../../helpers/eventually.js';
import { useSharedRedis } from '../../helpers/shared-redis.js';

// The storage feature flags against Redis: the first state, enabling against the live
// processes' adverts, an unknown enabled flag at start, and how processes learn of a change.
const shared = useSharedRedis();
const opened: StorageFeatures[] = [];
let cases = 0;

/** A key space of its own per test: as if a Redis of its own. */
const space = () => new KeySpace(`${shared.keys.prefix}case${++cases}:`);

async function open(keys: KeySpace, id: string, refreshMs?: number): Promise<StorageFeatures> {
  const bus = new EventBus(shared.connect(`subscriber-${id}`), shared.redis);
  const features = await StorageFeatures.open({ redis: shared.redis, keys, bus, id, kind: 'controller', refreshMs });
  opened.push(features);
  return features;
}

const adminOf = (store: FeatureStore) => new FeatureAdmin(store, async () => undefined);

afterEach(async () => {
  await Promise.all(opened.splice(0).map((features) => features.close()));
});

describe('the first state of the storage flags', () => {
  it('a Redis with no Ferrum data enables every known flag, once', async () => {
    const keys = space();
    const features = await open(keys, 'first');
    expect(features.list().sort()).toEqual([...KNOWN_FEATURES].sort());
    expect(features.enabled('plain_messages')).toBe(true);
    // Data written since does not change what was decided.
    await shared.redis.set(keys.of('queues', 'p'), 'x');
    expect((await new FeatureStore(shared.redis, keys).decide()).sort()).toEqual([...KNOWN_FEATURES].sort());
  });

  it('a Redis an earlier release wrote (any Ferrum key) starts with every flag disabled', async () => {
    const keys = space();
    await shared.redis.hset(keys.of('{mq:p:q}', 'queue'), 'created_at', '1');
    const features = await open(keys, 'upgraded');
    expect(features.list()).toEqual([]);
    expect(features.enabled('plain_messages')).toBe(false);
    expect(await shared.redis.get(keys.of('{features}', 'decided'))).toMatch(/^earlier-data@\d+$/);
  });

  it('probe keys alone are no data', async () => {
    const keys = space();
    await shared.redis.set(keys.of('ready-probe'), '1', 'PX', 10_000);
    expect((await new FeatureStore(shared.redis, keys).decide()).sort()).toEqual([...KNOWN_FEATURES].sort());
  });
});

describe('enabling a flag', () => {
  it('is refused with 409 naming each live process that does not support it, and allowed once it is gone', async () => {
    const keys = space();
    await shared.redis.set(keys.of('tasks', 'x'), '1');
    const features = await open(keys, 'controller-a');
    const store = features.store;
    const old = { id: 'c1/old-runner', kind: 'gateway-runner' as const, version: '0.1.0', features: [] };
    await store.advertise({ ...old, expires_at: Date.now() + 60_000 });
    const refusal = await adminOf(store)
      .enable('plain_messages')
      .catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(HttpError);
    expect((refusal as HttpError).statusCode).toBe(409);
    expect((refusal as HttpError).message).toBe(
      'Storage feature flag plain_messages cannot be enabled: live processes do not support it (upgrade or stop them first): c1/old-runner (gateway-runner, version 0.1.0)',
    );
    const listing = await adminOf(store).list();
    expect(listing.features[0]).toMatchObject({ name: 'plain_messages', enabled: false });
    expect(listing.features[0]!.unsupported_by).toEqual([
      { id: 'c1/old-runner', kind: 'gateway-runner', version: '0.1.0' },
    ]);
    expect(listing.processes.map((advert) => advert.id).sort()).toEqual(['c1/old-runner', 'controller-a']);
    // Its advert lapses (it stopped heartbeating): nothing holds the flag back.
    await store.advertise({ ...old, expires_at: Date.now() - 1 });
    expect(await adminOf(store).enable('plain_messages')).toEqual({ enabled: ['plain_messages'] });
    expect(await shared.redis.hexists(keys.of('{features}', 'processes'), old.id)).toBe(0);
  });

  it('an unknown name is 404 naming the known ones; `all` enables every known flag', async () => {
    const keys = space();
    await shared.redis.set(keys.of('tasks', 'x'), '1');
    const store = (await open(keys, 'controller-b')).store;
    const unknown = await adminOf(store)
      .enable('warp_drive')
      .then(
        () => null,
        (error: unknown) => error as HttpError,
      );
    expect(unknown?.statusCode).toBe(404);
    expect(unknown?.message).toBe(`Unknown storage feature flag warp_drive; known: ${KNOWN_FEATURES.join(', ')}`);
    expect((await adminOf(store).enable('all')).enabled.sort()).toEqual([...KNOWN_FEATURES].sort());
  });

  it('every process learns of it through pub/sub, and by its periodic re-read', async () => {
    const keys = space();
    await shared.redis.set(keys.of('tasks', 'x'), '1');
    const [a, b] = [await open(keys, 'proc-a', 600_000), await open(keys, 'proc-b', 600_000)];
    await new FeatureAdmin(a.store, () => a.announce()).enable('plain_messages');
    // The enabling process knows at once; the other one through pub/sub (no re-read for 10 minutes).
    expect(a.enabled('plain_messages')).toBe(true);
    await eventually(() => b.enabled('plain_messages'), 5000, 'the notice reaching b');

    const quiet = space();
    await shared.redis.set(quiet.of('tasks', 'x'), '1');
    const c = await open(quiet, 'proc-c', 100);
    // Enabled without a notice (a lost message): the next re-read finds it.
    await shared.redis.sadd(quiet.of('{features}', 'enabled'), 'plain_messages');
    await eventually(() => c.enabled('plain_messages'), 5000, 'the re-read of c');
  });
});

describe('a process on a Redis with a flag it does not know', () => {
  it('refuses to start, naming the flag and its own version', async () => {
    const keys = space();
    await shared.redis.set(keys.of('tasks', 'x'), '1');
    await new FeatureStore(shared.redis, keys).decide();
    await shared.redis.sadd(keys.of('{features}', 'enabled'), 'from_the_future');
    const refusal = await open(keys, 'too-old').catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(UnknownFeatureError);
    expect((refusal as Error).message).toContain(
      `Redis has storage feature flag(s) enabled that this release (${VERSION}) does not know: from_the_future`,
    );
    expect(await shared.redis.hexists(keys.of('{features}', 'processes'), 'too-old')).toBe(0);
  });

  it('a stopped process withdraws its advert', async () => {
    const keys = space();
    const features = await open(keys, 'leaving');
    expect(await shared.redis.hexists(keys.of('{features}', 'processes'), 'leaving')).toBe(1);
    await features.close();
    expect(await shared.redis.hexists(keys.of('{features}', 'processes'), 'leaving')).toBe(0);
  });
});
