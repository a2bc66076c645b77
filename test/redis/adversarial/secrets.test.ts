import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { keysMatching } from '../../helpers/redis.js';
import { describe, expect, it } from 'vitest';
import { useTenant } from '../../helpers/adversarial/tenant-data.js';
import { useHardenedServer, expectHealthy } from '../../helpers/adversarial/hardened-server.js';
import { useRedis } from '../../helpers/test-file.js';
import { tokenDigest } from '../../../src/auth/tokens.js';
import { startManagedRedis } from '../../../src/core/managed-redis.js';
import { HttpClient } from '../../helpers/http.js';

// Whoever reads Redis, or any list answer, learns no token; the managed Redis wants a password.

const server = useHardenedServer();
const tenant = useTenant(server, 'secrets');
const redis = useRedis(server);

/** Every string value stored in Redis (strings and hashes; identity keeps nothing else). */
async function everythingStored(): Promise<string> {
  const parts: string[] = [];
  for (const key of await keysMatching(redis, '*')) {
    const type = await redis.type(key);
    if (type === 'string') parts.push(key, (await redis.get(key)) ?? '');
    if (type === 'hash') parts.push(key, ...Object.entries(await redis.hgetall(key)).flat());
    if (type === 'set') parts.push(key, ...(await redis.smembers(key)));
  }
  return parts.join('\n');
}

describe('token secrets', () => {
  it('are shown once at creation and stored only as digests', async () => {
    const created = await tenant.http.post('/1/tokens', { name: 'once' });
    expect(created.status).toBe(201);
    const secret = created.body.token as string;
    expect(secret.length).toBeGreaterThan(20);
    const stored = await everythingStored();
    for (const each of [secret, tenant.token, server.token]) expect(stored).not.toContain(each);
    expect(stored).toContain(tokenDigest(secret));
    expect((await server.http.get('/1/tokens', { token: secret })).status).toBe(200);
  });

  it('never appear in list or read answers', async () => {
    const answers = [
      await tenant.http.get('/1/tokens'),
      await server.http.get(`/1/tokens?user_id=${tenant.userId}`),
      await server.http.get('/1/users'),
      await server.http.get(`/1/users/${tenant.userId}`),
      await tenant.http.get(`/1/users/${tenant.userId}`),
    ];
    for (const answer of answers) {
      expect(answer.status).toBe(200);
      expect(answer.text).not.toContain(tenant.token);
      expect(answer.text).not.toContain(server.token);
    }
    const listed = answers[0]!.body.tokens as Array<Record<string, unknown>>;
    expect(listed.length).toBeGreaterThan(0);
    for (const token of listed) {
      expect(token.token).toBeUndefined();
      expect(token.token_hint).toMatch(/^.{4}…$/);
    }
  });

  it('stored in the clear by an earlier version keep working and are hashed on first use and at start', async () => {
    // What an earlier version wrote: the secret as the index field and in the token record.
    const userId = tenant.userId;
    const write = async (id: string, secret: string) => {
      const tokenKey = (
        await keysMatching(
          redis,
          `*:token:${(await redis.smembers((await keysMatching(redis, `*:user:${userId}:tokens`))[0]!))[0]}`,
        )
      )[0]!;
      const secretsKey = tokenKey.replace(/token:[0-9a-f]+$/, 'secrets');
      const key = tokenKey.replace(/[0-9a-f]+$/, id);
      await redis.hset(key, {
        id,
        secret,
        user_id: userId,
        type: 'standard',
        name: 'old',
        admin: '0',
        created_at: '1',
      });
      await redis.sadd(tokenKey.replace(/token:[0-9a-f]+$/, `user:${userId}:tokens`), id);
      await redis.hset(secretsKey, secret, id);
      return { key, secretsKey };
    };
    const first = await write('aaaaaaaaaaaaaaaaaaaaaaaa', 'legacy-secret-used-first');
    expect((await server.http.get('/1/tokens', { token: 'legacy-secret-used-first' })).status).toBe(200);
    expect(await redis.hget(first.secretsKey, 'legacy-secret-used-first')).toBeNull();
    expect(await redis.hget(first.key, 'secret')).toBeNull();
    // Moved to its own key by digest, out of the {auth} index.
    expect(await redis.hlen(first.secretsKey)).toBe(0);
    const digestHex = tokenDigest('legacy-secret-used-first').slice('sha256:'.length);
    const moved = await keysMatching(redis, `*{t:${digestHex}}*`);
    expect(moved).toHaveLength(1);
    expect(JSON.parse((await redis.get(moved[0]!))!)).toMatchObject({ id: 'aaaaaaaaaaaaaaaaaaaaaaaa' });

    await write('bbbbbbbbbbbbbbbbbbbbbbbb', 'legacy-secret-migrated-at-start');
    expect(await server.running.ctx.identity.migrations.hashStoredSecrets()).toBe(1);
    expect(await everythingStored()).not.toContain('legacy-secret-migrated-at-start');
    expect((await server.http.get('/1/tokens', { token: 'legacy-secret-migrated-at-start' })).status).toBe(200);
    // The tokens list of that user shows neither.
    const listed = await server.http.get(`/1/tokens?user_id=${userId}`);
    expect(listed.text).not.toContain('legacy-secret');
    await expectHealthy(server);
  });

  it('a deleted token stops at once', async () => {
    const created = await tenant.http.post('/1/tokens', { name: 'short-lived' });
    const client = new HttpClient(server.url, created.body.token);
    expect((await client.get('/1/tokens')).status).toBe(200);
    expect((await tenant.http.delete(`/1/tokens/${created.body.id}`)).status).toBe(200);
    expect((await client.get('/1/tokens')).status).toBe(401);
  });
});

describe('function route secrets', () => {
  it('must be at least 16 characters', async () => {
    const response = await tenant.http.post('/v1/apps/secret-app/routes', {
      route: { path: '/r', image: 'ferrum-test/fn-echo', secret: 'guessable' },
    });
    expect(response.status).toBe(400);
    expect(JSON.stringify(response.body)).toMatch(/at least 16 characters/);
  });
});

describe('the managed Redis', () => {
  it('asks for a password kept in a private data folder', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ferrum-managed-'));
    const managed = await startManagedRedis({ dataDir, persistent: false });
    try {
      expect(fs.statSync(dataDir).mode & 0o777).toBe(0o700);
      expect(fs.statSync(path.join(dataDir, 'redis.password')).mode & 0o777).toBe(0o600);
      // A client without the password: a bare PING on the socket.
      const answer = await new Promise<string>((resolve, reject) => {
        const socket = net.connect(managed.port, '127.0.0.1', () => socket.write('PING\r\n'));
        socket.once('data', (data) => {
          resolve(data.toString());
          socket.destroy();
        });
        socket.once('error', reject);
      });
      expect(answer).toMatch(/^-NOAUTH/);
      const client = new Redis(managed.url);
      expect(await client.ping()).toBe('PONG');
      client.disconnect();
      const password = fs.readFileSync(path.join(dataDir, 'redis.password'), 'utf8').trim();
      expect(managed.url).toContain(password);
    } finally {
      await managed.stop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
