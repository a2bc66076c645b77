// Own server set-up: the CLI's first start, and a controller on the managed Redis `ferrum admin token` made in a data folder (a fixture server is always given a test Redis).
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startController } from '../../../controller/main.js';
import { loadConfig } from '../../../src/core/config.js';
import { Cli } from '../../helpers/cli.js';
import { HttpClient } from '../../helpers/http.js';
import { startTestServerOnRedis } from '../../helpers/server.js';
import { useTestServer } from '../../helpers/test-file.js';
import { startTestRedis } from '../../helpers/redis.js';
import { scaled } from '../../helpers/pace.js';

// The first start and `ferrum admin token`, run as the real CLI against a private Redis.

let cli: Cli;
let redis: Awaited<ReturnType<typeof startTestRedis>>;
const dirs: string[] = [];

beforeAll(async () => {
  [cli, redis] = await Promise.all([Cli.build(), startTestRedis()]);
});

afterAll(async () => {
  cli?.cleanUp();
  await redis?.stop();
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
});

function dataDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ferrum-cli-admin-'));
  dirs.push(dir);
  return dir;
}

const serverEnv = (dir: string, prefix: string) => ({
  FERRUM_DATA_DIR: dir,
  FERRUM_KEY_PREFIX: prefix,
  FERRUM_TOKEN_CACHE_MS: '0',
  HOST: '127.0.0.1',
  LOG_LEVEL: 'warn',
});

const adminToken = (env: Record<string, string>, ...flags: string[]) => cli.run(['admin', 'token', ...flags], { env });

/** The token a `ferrum admin token` printed. */
function printedToken(stdout: string): string {
  const token = /^ {2}token: +(\S+)$/m.exec(stdout)?.[1];
  if (!token) throw new Error(`no token in:\n${stdout}`);
  return token;
}

describe('a first start', { timeout: scaled(120_000) }, () => {
  it('that cannot listen creates no admin: the next start (or `ferrum admin token`) prints it', async () => {
    const taken = net.createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const dir = dataDir();
    const env = { ...serverEnv(dir, 'first-start:'), REDIS_URL: redis.url };
    try {
      const port = String((taken.address() as net.AddressInfo).port);
      const failed = await cli.run(['controller'], { env: { ...env, PORT: port } });
      expect(failed.code).not.toBe(0);
      expect(failed.stderr).toContain('EADDRINUSE');
      expect(failed.stdout).not.toContain('bootstrap');
    } finally {
      taken.close();
    }
    const first = await adminToken(env);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain('Ferrum bootstrap: created the first admin user, token and project.');
    expect(first.stdout).toMatch(/^ {2}password: +\S+$/m);
    const ironJson = JSON.parse(fs.readFileSync(path.join(dir, 'iron.json'), 'utf8'));
    expect(ironJson.token).toBe(printedToken(first.stdout));
  });
});

describe('ferrum admin token', { timeout: scaled(120_000) }, () => {
  const server = useTestServer({}, () =>
    startTestServerOnRedis(redis.url, { FERRUM_KEY_PREFIX: 'admin-token:', FERRUM_TOKEN_CACHE_MS: '0' }),
  );
  const env = () => ({ ...serverEnv(server.config.dataDir, 'admin-token:'), REDIS_URL: redis.url });

  const works = async (token: string) => (await new HttpClient(server.url, token).get('/1/users')).status;

  it('makes a new working admin token; --revoke-earlier stops the earlier ones', async () => {
    const bootstrapToken = server.token;
    const made = await adminToken(env());
    expect(made.code, made.stderr).toBe(0);
    expect(made.stdout).toMatch(/^Ferrum: a new admin token for admin@ferrum\.local\.$/m);
    expect(made.stdout).toContain(`project_id: ${server.projectId}`);
    const second = printedToken(made.stdout);
    expect(await works(second)).toBe(200);
    expect(await works(bootstrapToken)).toBe(200);

    const rotated = await adminToken(env(), '--revoke-earlier');
    expect(rotated.code, rotated.stderr).toBe(0);
    expect(rotated.stdout).toMatch(/^ {2}revoked: +2 earlier admin token\(s\)$/m);
    const third = printedToken(rotated.stdout);
    expect(await works(third)).toBe(200);
    expect(await works(second)).toBe(401);
    expect(await works(bootstrapToken)).toBe(401);
    expect(JSON.parse(fs.readFileSync(path.join(server.config.dataDir, 'iron.json'), 'utf8')).token).toBe(third);
  });

  it('refuses an unknown flag, and a Redis it cannot reach', async () => {
    const unknown = await adminToken(env(), '--everything');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("unknown option '--everything'");
    const unreachable = await adminToken({
      ...env(),
      REDIS_URL: 'redis://127.0.0.1:1',
      FERRUM_REDIS_CONNECT_TIMEOUT_MS: '500',
    });
    expect(unreachable.code).toBe(1);
    expect(unreachable.stderr).toContain('ferrum: cannot reach Redis (REDIS_URL): ');
  });

  it("works with the managed Redis of a data folder: started for the call, or the running server's", async () => {
    const managedEnv = serverEnv(dataDir(), 'managed:');
    const first = await adminToken(managedEnv);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain('Ferrum bootstrap');
    const server = await startController(loadConfig({ ...managedEnv, PORT: '0' }));
    try {
      expect(server.bootstrap).toBeNull();
      const again = await adminToken(managedEnv);
      expect(again.code, again.stderr).toBe(0);
      expect(again.stdout).toContain('a new admin token for admin@ferrum.local');
      expect((await new HttpClient(server.url, printedToken(again.stdout)).get('/1/users')).status).toBe(200);
    } finally {
      await server.stop();
    }
  });
});
