import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { beforeAll, describe, expect, it } from 'vitest';
import { Cli, dirWithIronJson, ironJsonOf } from '../../helpers/cli.js';
import { FunctionsClient } from '../../helpers/functions.js';
import { FAST_WORKER_ENV } from '../../helpers/worker.js';
import { createTenant, expectHealthy, type Tenant } from '../../helpers/adversarial/hardened-server.js';
import { scaled } from '../../helpers/pace.js';
import { useHardenedServer } from '../../helpers/adversarial/hardened-test-file.js';
import { useRunner } from '../../helpers/worker-test-file.js';

// A tenant's function is called by people who also use the platform: the caller's platform
// token must never reach the function (header or query), and a caller may not pose as the
// platform with Fn-* headers of its own.

const server = useHardenedServer(FAST_WORKER_ENV);
useRunner(server, FAST_WORKER_ENV);
let owner: Tenant;
let caller: Tenant;
let fn: FunctionsClient;
const app = `creds-${process.pid}`;

beforeAll(async () => {
  owner = await createTenant(server, 'fn-owner');
  caller = await createTenant(server, 'fn-caller');
  fn = new FunctionsClient(owner.http);
  expect((await owner.http.post('/v1/apps', { app: { name: app, project_id: owner.projectId } })).status).toBe(200);
  // `default` format: the body is a shell script; `env` prints what the function was given.
  await fn.route(app, { path: '/env', image: 'ferrum-test/busybox' });
  await fn.route(app, { path: '/echo', image: 'ferrum-test/fn-hot-http', format: 'http' });
  await fn.route(app, { path: '/json', image: 'ferrum-test/fn-hot-json', format: 'json' });
}, scaled(60_000));

describe("a caller's platform credentials", () => {
  it('never reach the function, in Authorization or in the oauth query parameter', async () => {
    for (const scheme of ['OAuth', 'oauth', 'OAUTH']) {
      const called = await fn.call('POST', `${app}/env?keep=1&oauth=${caller.token}&OAuth=${caller.token}`, 'env', {
        authorization: `${scheme} ${caller.token}`,
      });
      expect(called.status, called.text).toBe(200);
      expect(called.text).not.toContain(caller.token);
      expect(called.text).toMatch(/REQUEST_URL=http:\/\/[^\n]*\/r\/creds-\d+\/env\?keep=1\n/);
    }
  });

  it('other Authorization schemes reach the function as sent', async () => {
    for (const authorization of ['Bearer not-the-platform', 'Basic dXNlcjpwYXNz']) {
      const called = await fn.call('POST', `${app}/env`, 'env', { authorization });
      expect(called.status, called.text).toBe(200);
      expect(called.text).toContain(`HEADER_AUTHORIZATION=${authorization}`);
    }
  });

  it('are not sent by `ferrum functions call`', async () => {
    const seen: http.IncomingHttpHeaders[] = [];
    const recorder = http.createServer((request, response) => {
      seen.push(request.headers);
      response.end('called');
    });
    await new Promise<void>((resolve) => recorder.listen(0, '127.0.0.1', resolve));
    const cli = await Cli.build();
    try {
      const port = (recorder.address() as AddressInfo).port;
      const cwd = dirWithIronJson({ ...ironJsonOf({ ...server, token: caller.token }), port });
      const result = await cli.run(['functions', 'call', app, '/env', '--data', 'env'], { cwd });
      expect(result.code, result.stderr).toBe(0);
      expect(seen).toHaveLength(1);
      expect(seen[0]!.authorization).toBeUndefined();
      expect(JSON.stringify(seen[0])).not.toContain(caller.token);
    } finally {
      cli.cleanUp();
      await new Promise((resolve) => recorder.close(resolve));
    }
  });
});

describe('platform headers a caller sends', () => {
  it("do not reach an http-format function: it sees the platform's Fn-Call-Id and Fn-Deadline only", async () => {
    const called = await fn.call('POST', `${app}/echo`, 'x', {
      'fn-call-id': 'forged-call-id',
      'fn-deadline': '2000-01-01T00:00:00Z',
    });
    expect(called.status, called.text).toBe(200);
    const echo = JSON.parse(called.text);
    expect(echo.callId).toBe(called.headers.get('fn-call-id'));
    expect(echo.deadline).not.toContain('2000-01-01');
  });

  it('a function answer with an invalid header name is a 502 that says so', async () => {
    // The json format carries the answer's headers as data: any name reaches the server.
    const called = await fn.call('POST', `${app}/json`, 'x', { 'x-header': 'bad name: value' });
    expect(called.status, called.text).toBe(502);
    expect(called.text).toContain('invalid header name');
    await expectHealthy(server);
  });
});
