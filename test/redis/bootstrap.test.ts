import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { startController, type RunningController } from '../../controller/main.js';
import { loadConfig } from '../../src/core/config.js';
import { HttpClient } from '../helpers/http.js';
import { scaled } from '../helpers/pace.js';

const execFileAsync = promisify(execFile);

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ferrum-bootstrap-'));
const config = loadConfig({
  PORT: '0',
  FERRUM_DATA_DIR: dataDir,
  LOG_LEVEL: 'warn',
  FERRUM_BOOTSTRAP_TOKEN: 'bootstrap-token-for-tests-0123456789',
  FERRUM_BOOTSTRAP_PROJECT_ID: 'first-project',
  FERRUM_BOOTSTRAP_EMAIL: 'owner@example.com',
  FERRUM_BOOTSTRAP_PASSWORD: 'owner-password',
});
let running: RunningController | null = null;

// Each reads the protocol under the name its language's official client reads (Python's
// iron_core: `protocol`; Ruby's: `scheme`) and lists the project's caches through it.
const IRON_JSON_READERS = {
  python: [
    '/usr/bin/python3',
    '-c',
    `import json, sys, urllib.request
c = json.load(open(sys.argv[1]))
url = "%s://%s:%s/1/projects/%s/caches" % (c["protocol"], c["host"], c["port"], c["project_id"])
req = urllib.request.Request(url, headers={"Authorization": "OAuth " + c["token"]})
print(urllib.request.urlopen(req).status)`,
  ],
  ruby: [
    'ruby',
    '-rjson',
    '-rnet/http',
    '-e',
    `c = JSON.parse(File.read(ARGV[0]))
uri = URI("#{c['scheme']}://#{c['host']}:#{c['port']}/1/projects/#{c['project_id']}/caches")
res = Net::HTTP.start(uri.host, uri.port, use_ssl: uri.scheme == 'https') { |h| h.get(uri.path, 'Authorization' => "OAuth #{c['token']}") }
puts res.code`,
  ],
};

async function statusThroughIronJson(language: keyof typeof IRON_JSON_READERS, dir: string): Promise<string> {
  const [command, ...args] = IRON_JSON_READERS[language];
  const { stdout } = await execFileAsync(command!, [...args, path.join(dir, 'iron.json')], { timeout: scaled(30_000) });
  return stdout.trim();
}

afterAll(async () => {
  await running?.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

describe('one-command start with a managed redis-server', () => {
  it('bootstraps on first start, writes iron.json, and keeps data across a restart', async () => {
    running = await startController(config);
    expect(running.bootstrap).toEqual({
      email: 'owner@example.com',
      password: 'owner-password',
      token: 'bootstrap-token-for-tests-0123456789',
      projectId: 'first-project',
    });
    const ironJson = JSON.parse(fs.readFileSync(path.join(dataDir, 'iron.json'), 'utf8'));
    expect(ironJson).toEqual({
      token: 'bootstrap-token-for-tests-0123456789',
      project_id: 'first-project',
      host: '127.0.0.1',
      port: running.port,
      protocol: 'http',
      scheme: 'http',
    });
    expect(await statusThroughIronJson('python', dataDir)).toBe('200');
    expect(await statusThroughIronJson('ruby', dataDir)).toBe('200');
    expect(fs.statSync(path.join(dataDir, 'iron.json')).mode & 0o077).toBe(0);
    expect(fs.existsSync(path.join(dataDir, 'appendonlydir'))).toBe(true);

    const http = new HttpClient(running.url, ironJson.token);
    const created = await http.post('/1/users', { email: 'kept@example.com', password: 'pw' });
    expect(created.status).toBe(201);
    const usersBefore = (await http.get('/1/users')).body.users;
    const tokensBefore = (await http.get('/1/tokens')).body.tokens;
    await running.stop();
    running = null;

    running = await startController(config);
    expect(running.bootstrap).toBeNull();
    const again = new HttpClient(running.url, ironJson.token);
    expect((await again.get('/1/users')).body.users).toEqual(usersBefore);
    expect((await again.get('/1/tokens')).body.tokens).toEqual(tokensBefore);
    expect((await again.get('/1/projects/first-project')).status).toBe(200);
    const login = await again.post('/1/authentication', { email: 'kept@example.com', password: 'pw' }, { token: null });
    expect(login.status).toBe(200);
  });

  it('adds a changed FERRUM_BOOTSTRAP_TOKEN (a rotated Secret) as another admin token on the next start, once', async () => {
    await running?.stop();
    const rotated = { ...config, bootstrap: { ...config.bootstrap, token: 'rotated-bootstrap-token-0123456789' } };
    running = await startController(rotated);
    expect(running.bootstrap).toBeNull();
    const fresh = new HttpClient(running.url, 'rotated-bootstrap-token-0123456789');
    const tokens = (await fresh.get('/1/tokens')).body.tokens as Array<{ name: string; admin: boolean }>;
    expect(tokens.filter((token) => token.name === 'bootstrap admin')).toHaveLength(2);
    expect((await fresh.get('/1/users')).status).toBe(200);
    // The earlier value stays valid until deleted.
    expect((await new HttpClient(running.url, 'bootstrap-token-for-tests-0123456789').get('/1/users')).status).toBe(
      200,
    );
    await running.stop();

    running = await startController(rotated);
    const again = new HttpClient(running.url, 'rotated-bootstrap-token-0123456789');
    expect(((await again.get('/1/tokens')).body.tokens as unknown[]).length).toBe(tokens.length);
  });
});
