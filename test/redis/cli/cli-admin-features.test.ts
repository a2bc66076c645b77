import { describe, expect, it } from 'vitest';
import { FeatureStore } from '../../../src/core/features/feature-store.js';
import { createRedisClient, KeySpace } from '../../../src/core/redis.js';
import { Cli } from '../../helpers/cli.js';
import { eventually } from '../../helpers/eventually.js';
import { madeOnFirstUse } from '../../helpers/read-through.js';
import { startTestServerOnRedis } from '../../helpers/server.js';
import { useBeforeAll, useTestRedis, useTestServer } from '../../helpers/test-file.js';
import { scaled } from '../../helpers/pace.js';

// `ferrum admin features list|enable`, and a start refused on a flag this release does not know,
// run as the real CLI against a private Redis that an earlier release wrote.
const PREFIX = 'features-cli:';
const cli = useBeforeAll(
  () => Cli.build(),
  (built) => built.cleanUp(),
);
const redis = useTestRedis();
const client = useBeforeAll(
  async () => {
    const connected = createRedisClient(redis.url, 'test', {});
    // Data of a release before flags: the controller starts with every flag disabled.
    await connected.hset(`${PREFIX}{mq:p:q}:queue`, 'created_at', '1');
    return connected;
  },
  (connected) => connected.disconnect(),
);
const server = useTestServer({}, () => startTestServerOnRedis(redis.url, { FERRUM_KEY_PREFIX: PREFIX }));
const store = madeOnFirstUse(() => new FeatureStore(client, new KeySpace(PREFIX)));
const cliEnv = (): Record<string, string> => ({
  FERRUM_DATA_DIR: server.config.dataDir,
  FERRUM_KEY_PREFIX: PREFIX,
  HOST: '127.0.0.1',
  LOG_LEVEL: 'warn',
  REDIS_URL: redis.url,
});

const features = (...args: string[]) => cli.run(['admin', 'features', ...args], { env: cliEnv() });

describe('ferrum admin features', { timeout: scaled(120_000) }, () => {
  it('lists the flags and the live processes', async () => {
    const listed = await features('list');
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toMatch(/^ {2}plain_messages {2}disabled {2}\(since \S+\)$/m);
    expect(listed.stdout).toMatch(/^Live processes \(1\):$/m);
    expect(listed.stdout).toMatch(
      /^ {2}controller-\S+ {2}controller {2}\S+ {2}supports: plain_messages, route_index$/m,
    );
  });

  it('enable is refused (exit 1) while a live process lacks the flag, naming it; then enables and the controller learns of it', async () => {
    const old = { id: 'c1/old', kind: 'gateway-runner' as const, version: '0.1.0', features: [] };
    await store.advertise({ ...old, expires_at: Date.now() + 60_000 });
    const refused = await features('enable', 'plain_messages');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      'ferrum: Storage feature flag plain_messages cannot be enabled: live processes do not support it (upgrade or stop them first): c1/old (gateway-runner, version 0.1.0)',
    );
    expect((await features('list')).stdout).toContain('not supported by: c1/old (gateway-runner 0.1.0)');
    await store.withdraw(old.id);
    const enabled = await features('enable', '--all');
    expect(enabled.code, enabled.stderr).toBe(0);
    expect(enabled.stdout).toContain('Enabled flags: plain_messages, route_index');
    await eventually(
      () => server.running.ctx.features.enabled('plain_messages'),
      5000,
      'the controller learning of it',
    );
  });

  it('a flag and --all together, neither, or an unknown flag are refused', async () => {
    expect((await features('enable')).code).toBe(2);
    expect((await features('enable', 'plain_messages', '--all')).code).toBe(2);
    const unknown = await features('enable', 'warp_drive');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('Unknown storage feature flag warp_drive; known: plain_messages, route_index');
  });

  it('a controller on a Redis with a flag it does not know refuses to start, non-zero', async () => {
    await client.sadd(store.keys.enabled(), 'from_the_future');
    try {
      const refused = await cli.run(['controller'], { env: { ...cliEnv(), PORT: '0' } });
      expect(refused.code).not.toBe(0);
      expect(refused.stderr).toContain('does not know: from_the_future');
    } finally {
      await client.srem(store.keys.enabled(), 'from_the_future');
    }
  });
});
