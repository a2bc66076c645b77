import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/core/config.js';
import { clusterSeedsOf, connectionOf, isRedisFull, isRedisUnavailable, redisErrorKind } from '../../src/core/redis.js';

const redisUrlOf = (env: Record<string, string>) => loadConfig(env).redisUrl;
/** `host:port` addresses as the connection options list them. */
const hostsOf = (...addresses: string[]) =>
  addresses.map((address) => ({ host: address.split(':')[0], port: Number(address.split(':')[1]) }));

describe('FERRUM_REDIS_MODE', () => {
  it('standalone passes REDIS_URL through', () => {
    expect(redisUrlOf({ REDIS_URL: 'redis://:pw@db:6380/2' })).toBe('redis://:pw@db:6380/2');
  });

  it('sentinel names the Sentinels and the master', () => {
    const url = redisUrlOf({
      FERRUM_REDIS_MODE: 'sentinel',
      FERRUM_REDIS_SENTINELS: 's1:26379,s2:26379',
      FERRUM_REDIS_SENTINEL_MASTER: 'main',
    });
    expect(url).toBe('redis-sentinel://s1:26379,s2:26379/main');
    const withPassword = redisUrlOf({ FERRUM_REDIS_MODE: 'sentinel', REDIS_URL: 'redis://:pw@s1:26379,s2:26379' });
    expect(withPassword).toBe('redis-sentinel://:pw@s1:26379,s2:26379/mymaster');
    expect(connectionOf(withPassword!)).toMatchObject({
      sentinels: hostsOf('s1:26379', 's2:26379'),
      name: 'mymaster',
      password: 'pw',
    });
  });

  it('cluster takes comma-separated seeds, bare or as redis:// URLs, with the first credentials', () => {
    const url = redisUrlOf({ FERRUM_REDIS_MODE: 'cluster', REDIS_URL: 'redis://app:s%40cret@n1:7000, n2:7001' });
    expect(url).toBe('redis-cluster://app:s%40cret@n1:7000,n2:7001');
    expect(clusterSeedsOf(url!)).toEqual({
      nodes: hostsOf('n1:7000', 'n2:7001'),
      username: 'app',
      password: 's@cret',
    });
    expect(clusterSeedsOf('redis-cluster://10.0.0.1:7000')).toEqual({ nodes: [{ host: '10.0.0.1', port: 7000 }] });
  });

  it('refuses a cluster without seeds, a seed without a port, or another scheme, naming the setting', () => {
    expect(() => redisUrlOf({ FERRUM_REDIS_MODE: 'cluster' })).toThrow(/REDIS_URL/);
    expect(() => redisUrlOf({ FERRUM_REDIS_MODE: 'cluster', REDIS_URL: 'n1' })).toThrow(/host:port/);
    expect(() => redisUrlOf({ FERRUM_REDIS_MODE: 'cluster', REDIS_URL: 'http://n1:7000' })).toThrow(/redis:\/\//);
    expect(() => redisUrlOf({ FERRUM_REDIS_MODE: 'galaxy' })).toThrow(/FERRUM_REDIS_MODE/);
  });

  it('refuses TLS (rediss://) Sentinels and Cluster seeds with a clear error, and keeps it for standalone', () => {
    expect(redisUrlOf({ REDIS_URL: 'rediss://:pw@db:6380/0' })).toBe('rediss://:pw@db:6380/0');
    const tls =
      /REDIS_URL entry "rediss:\/\/n1:7000": TLS \(rediss:\/\/\) is supported only with FERRUM_REDIS_MODE=standalone/;
    expect(() => redisUrlOf({ FERRUM_REDIS_MODE: 'cluster', REDIS_URL: 'rediss://n1:7000' })).toThrow(tls);
    expect(() => redisUrlOf({ FERRUM_REDIS_MODE: 'cluster', REDIS_URL: 'n0:7000,rediss://n1:7000' })).toThrow(tls);
    expect(() => redisUrlOf({ FERRUM_REDIS_MODE: 'sentinel', REDIS_URL: 'rediss://n1:7000' })).toThrow(tls);
    expect(() => redisUrlOf({ FERRUM_REDIS_MODE: 'sentinel', FERRUM_REDIS_SENTINELS: 'rediss://s1:26379' })).toThrow(
      /FERRUM_REDIS_SENTINELS entry "rediss:\/\/s1:26379": TLS/,
    );
  });
});

describe('a cluster that cannot serve', () => {
  it('is "unavailable" (503 and Retry-After), not an internal error', () => {
    for (const message of [
      "Cluster isn't ready and enableOfflineQueue options is false",
      'CLUSTERDOWN The cluster is down',
      'TRYAGAIN Multiple keys request during rehashing of slot',
      'Failed to refresh slots cache.',
      'Too many Cluster redirections. Last error: Error: Connection is closed.',
    ])
      expect(isRedisUnavailable(new Error(message)), message).toBe(true);
  });
});

describe('a reachable Redis refusing writes', () => {
  it('is "unavailable" (503 and Retry-After): unable to persist, a replica', () => {
    for (const message of [
      'MISCONF Redis is configured to save RDB snapshots, but it is currently not able to persist on disk.',
      "READONLY You can't write against a read only replica.",
    ]) {
      const error = Object.assign(new Error(message), { name: 'ReplyError' });
      expect(isRedisUnavailable(error), message).toBe(true);
    }
    expect(isRedisUnavailable(Object.assign(new Error('ERR wrong number of arguments'), { name: 'ReplyError' }))).toBe(
      false,
    );
  });

  it('is "full" (507), not unavailable, when out of memory: a command, a script, a discarded transaction', () => {
    const reply = (message: string) => Object.assign(new Error(message), { name: 'ReplyError' });
    const oom = reply("OOM command not allowed when used memory > 'maxmemory'.");
    const inScript = reply(
      "ERR Error running script (call to f_0): @user_script:9: @user_script: 9: -OOM command not allowed when used memory > 'maxmemory'.",
    );
    const discarded = Object.assign(reply('EXECABORT Transaction discarded because of previous errors.'), {
      previousErrors: [oom],
    });
    for (const error of [oom, inScript, discarded]) {
      expect(isRedisFull(error), error.message).toBe(true);
      expect(isRedisUnavailable(error), error.message).toBe(false);
      expect(redisErrorKind(error), error.message).toBe('OOM');
    }
    expect(isRedisFull(reply('EXECABORT Transaction discarded because of previous errors.'))).toBe(false);
  });
});
