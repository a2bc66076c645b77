import { createHash } from 'node:crypto';
import http from 'node:http';
import { describe, expect, it } from 'vitest';
import type { TestServer } from '../../helpers/server.js';
import { useHardenedServer } from '../../helpers/adversarial/hardened-server.js';
import { useTenant } from '../../helpers/adversarial/tenant-data.js';
import { scaled, timed } from '../../helpers/pace.js';

// A stranger who knows B's e-mail cannot lock B out of the dashboard by failing to sign in as
// B. After 11 wrong passwords from one address, B's right password from that address got
// `429 try again in 898 s`; behind a proxy or NAT every client shares one address, so 11
// requests locked any account and 101 every sign-in. Now nothing is refused: a much-tried
// account or a much-trying address is slowed down, the right password and the wrong alike.
// Reached at the third attempt past a limit (250 ms a step): every wait past it is a fixed cost of the file.
const MAX_DELAY_MS = 750;
const LIMITS = {
  FERRUM_LOGIN_MAX_PER_ACCOUNT: '3',
  FERRUM_LOGIN_MAX_PER_ADDRESS: '6',
  FERRUM_LOGIN_WINDOW_MS: '60000',
  FERRUM_LOGIN_MAX_DELAY_MS: String(MAX_DELAY_MS),
};

/** How the sign-in counters name an address in their keys. */
const digest = (value: string) => createHash('sha256').update(value).digest('hex').slice(0, 32);

/** POST /1/authentication from the loopback address `from`, with the headers given. */
function signInFrom(
  server: TestServer,
  from: string,
  email: string,
  password: string,
  headers: Record<string, string> = {},
): Promise<number> {
  const url = new URL('/1/authentication', server.url);
  const body = JSON.stringify({ email, password });
  return new Promise((resolve, reject) => {
    const request = http.request(
      url,
      { method: 'POST', localAddress: from, headers: { 'Content-Type': 'application/json', ...headers } },
      (response) => {
        response.resume();
        response.on('end', () => resolve(response.statusCode ?? 0));
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}

describe('without a trusted proxy (the peer is the client)', () => {
  const server = useHardenedServer(LIMITS);
  const owner = useTenant(server, 'lockout-owner');
  const neighbour = useTenant(server, 'lockout-neighbour');

  it(
    "11 wrong passwords from the owner's own address leave the right one slowed, never refused",
    async () => {
      const guesses: number[] = [];
      for (let i = 0; i < 11; i++) guesses.push(await signInFrom(server, '127.0.0.2', owner.email, `guess-${i}`));
      expect(new Set(guesses)).toEqual(new Set([401]));
      // Past the account's limit a wrong password waits as long as a right one would.
      const wrong = await timed(() => signInFrom(server, '127.0.0.2', owner.email, 'guess-again'));
      expect(wrong.value).toBe(401);
      expect(wrong.ms).toBeGreaterThanOrEqual(MAX_DELAY_MS - 50);
      const right = await timed(() => signInFrom(server, '127.0.0.2', owner.email, owner.password));
      expect(right.value).toBe(200);
      expect(right.ms).toBeGreaterThanOrEqual(MAX_DELAY_MS - 50);
      // The owner's success starts the account's count again.
      expect(await signInFrom(server, '127.0.0.3', owner.email, owner.password)).toBe(200);
    },
    scaled(60_000),
  );

  it(
    'one address spraying many accounts slows its own attempts but locks nobody out',
    async () => {
      for (let i = 0; i < 8; i++)
        expect(await signInFrom(server, '127.0.0.4', `spray-${i}@example.com`, 'x')).toBe(401);
      const neighbourIn = await timed(() => signInFrom(server, '127.0.0.4', neighbour.email, neighbour.password));
      expect(neighbourIn.value).toBe(200);
      expect(neighbourIn.ms).toBeGreaterThanOrEqual(240);
      // Forwarding headers are not trusted: naming another address changes nothing.
      const forwarded = await timed(() =>
        signInFrom(server, '127.0.0.4', 'spray-x@example.com', 'x', { 'x-forwarded-for': '198.51.100.9' }),
      );
      expect(forwarded.ms).toBeGreaterThanOrEqual(240);
    },
    scaled(60_000),
  );
});

describe('behind a trusted proxy (FERRUM_TRUST_PROXY)', () => {
  const server = useHardenedServer({ ...LIMITS, FERRUM_TRUST_PROXY: '127.0.0.0/8' });
  const neighbour = useTenant(server, 'proxied-neighbour');

  it('counts the forwarded client address: a guesser behind the same proxy slows only itself', async () => {
    const guesser = { 'x-forwarded-for': '203.0.113.7' };
    for (let i = 0; i < 8; i++)
      expect(await signInFrom(server, '127.0.0.5', `spray-${i}@example.com`, 'x', guesser)).toBe(401);
    const slowed = await timed(() => signInFrom(server, '127.0.0.5', 'spray-x@example.com', 'x', guesser));
    expect(slowed.ms).toBeGreaterThanOrEqual(240);
    // Another client, through the same proxy: counted on its own address, not the proxy's.
    expect(
      await signInFrom(server, '127.0.0.5', neighbour.email, neighbour.password, { 'x-forwarded-for': '198.51.100.9' }),
    ).toBe(200);
    const redis = server.openRedis();
    try {
      const count = async (address: string) =>
        redis.get(`${server.config.keyPrefix}{login}:address:${digest(address)}`);
      expect(await count('203.0.113.7')).toBe('9');
      expect(await count('198.51.100.9')).toBe('1');
      expect(await count('127.0.0.5')).toBeNull();
    } finally {
      redis.disconnect();
    }
  });
});
