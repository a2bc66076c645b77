import http from 'node:http';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { TestServer } from '../../helpers/server.js';
import { createTenant, startHardenedServer, type Tenant } from '../../helpers/adversarial/hardened-server.js';
import { scaled } from '../../helpers/pace.js';

// A stranger who knows B's e-mail cannot lock B out of the dashboard by failing to sign in as
// B: guesses are refused on the guesser's own addresses, and B, signing in from elsewhere, is at
// most slowed down.
const MAX_DELAY_MS = 1500;
let server: TestServer;
let owner: Tenant;

beforeAll(async () => {
  server = await startHardenedServer({
    FERRUM_LOGIN_MAX_PER_ACCOUNT: '3',
    FERRUM_LOGIN_MAX_PER_ADDRESS: '50',
    FERRUM_LOGIN_WINDOW_MS: '60000',
    FERRUM_LOGIN_MAX_DELAY_MS: String(MAX_DELAY_MS),
  });
  owner = await createTenant(server, 'lockout-owner');
}, scaled(60_000));

afterAll(async () => {
  await server?.stop();
});

/** POST /1/authentication from the loopback address `from` (the server trusts no forwarding header). */
function signInFrom(from: string, email: string, password: string): Promise<number> {
  const url = new URL('/1/authentication', server.url);
  const body = JSON.stringify({ email, password });
  return new Promise((resolve, reject) => {
    const request = http.request(
      url,
      { method: 'POST', localAddress: from, headers: { 'Content-Type': 'application/json' } },
      (response) => {
        response.resume();
        response.on('end', () => resolve(response.statusCode ?? 0));
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}

it(
  'refuses a guesser on its own address, and lets the owner in from another, at most slowed down',
  async () => {
    const guesses: number[] = [];
    for (let i = 0; i < 10; i++) guesses.push(await signInFrom('127.0.0.2', owner.email, `guess-${i}`));
    expect(guesses.slice(0, 3)).toEqual([401, 401, 401]);
    expect(new Set(guesses.slice(3))).toEqual(new Set([429]));
    // Guesses spread over many addresses slow the account down but never lock it.
    for (const host of ['127.0.0.3', '127.0.0.4'])
      for (let i = 0; i < 2; i++) expect(await signInFrom(host, owner.email, 'wrong')).toBe(401);
    const started = performance.now();
    expect(await signInFrom('127.0.0.1', owner.email, owner.password)).toBe(200);
    expect(performance.now() - started).toBeGreaterThanOrEqual(MAX_DELAY_MS - 50);
    // The owner's success starts the account's count again: the next sign-in is not slowed.
    const again = performance.now();
    expect(await signInFrom('127.0.0.1', owner.email, owner.password)).toBe(200);
    expect(performance.now() - again).toBeLessThan(MAX_DELAY_MS);
  },
  scaled(60_000),
);
