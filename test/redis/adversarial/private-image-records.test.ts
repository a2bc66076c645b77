import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KeySpace } from '../../../src/core/redis.js';
import { PrivateImages } from '../../../src/worker/codes/images/private-images.js';
import { WorkerKeys } from '../../../src/worker/keys.js';
import { startTestRedis } from '../../helpers/redis.js';

// The private-image rule against the engine's view of a reference (the engine itself is the
// docker lane's, private-images-docker): what the rule decides for each form of reference.

const IMAGE = 'registry.example/victim/secret';
const ID = `sha256:${'ab'.repeat(32)}`;
const byName = { id: ID, byId: false };
const byId = { id: ID, byId: true };

let stopRedis: () => Promise<void>;
let redis: Redis;
let images: PrivateImages;

beforeAll(async () => {
  const server = await startTestRedis();
  stopRedis = () => server.stop();
  redis = new Redis(server.url);
  images = new PrivateImages(redis, new WorkerKeys(new KeySpace('test:')), 600_000);
});

afterAll(async () => {
  redis?.disconnect();
  await stopRedis?.();
});

describe('an image some project pulled with credentials', () => {
  it('is refused by id to a project without a pull of its own, and never pulled for an id', async () => {
    await images.recordPull(IMAGE, 'victim', ID);
    expect((await images.decide(ID, 'attacker', false, byId)).action).toBe('refuse');
    expect((await images.decide(ID.slice(7, 11), 'attacker', true, byId)).action).toBe('refuse');
    expect((await images.decide('other/name:tag', 'attacker', false, byName)).action).toBe('refuse');
    expect((await images.decide(ID, 'victim', false, byId)).action).toBe('run');
    expect((await images.decide(IMAGE, 'attacker', true, byName)).action).toBe('pull');
  });

  it('recorded by name only (before ids were kept) is found by id once its name was looked at', async () => {
    const legacy = 'registry.example/victim/older';
    const olderId = `sha256:${'cd'.repeat(32)}`;
    await images.recordPull(legacy, 'victim', null);
    expect((await images.decide(legacy, 'attacker', false, { id: olderId, byId: false })).action).toBe('refuse');
    expect((await images.decide(olderId, 'attacker', false, { id: olderId, byId: true })).action).toBe('refuse');
  });

  it('leaves images nobody pulled privately to everyone', async () => {
    const open = { id: `sha256:${'ef'.repeat(32)}`, byId: true };
    expect((await images.decide(open.id, 'attacker', false, open)).action).toBe('run');
  });
});
