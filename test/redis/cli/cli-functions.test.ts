import { describe, expect, it } from 'vitest';
import { useCliSession } from '../../helpers/cli.js';
import { scaled } from '../../helpers/pace.js';

const session = useCliSession();
const ferrum = (...args: string[]) => session.ferrum(args);

describe('ferrum functions', { timeout: scaled(120_000) }, () => {
  it('creates and lists apps and routes, deletes them, and prints the API error.message', async () => {
    const app = await ferrum('functions', 'apps', 'create', 'cli-app', '--config', 'GREETING=hi', '--json');
    expect(app.code, app.stderr).toBe(0);
    expect(JSON.parse(app.stdout).app).toMatchObject({ name: 'cli-app', config: { GREETING: 'hi' } });
    const duplicate = await ferrum('functions', 'apps', 'create', 'cli-app');
    expect(duplicate.code).toBe(1);
    expect(duplicate.stderr).toMatch(/^ferrum: .*\S\n$/);
    expect(duplicate.stderr).not.toMatch(/\{/);

    const apps = await ferrum('functions', 'apps', 'list');
    expect(apps.stdout).toMatch(/^NAME\s+CONFIG\ncli-app\s+\{"GREETING":"hi"\}\n$/);

    const route = await ferrum(
      'functions',
      'routes',
      'create',
      'cli-app',
      '/hello/world',
      '--image',
      'ferrum-test/busybox',
      '--memory',
      '64',
      '--type',
      'async',
      '--json',
    );
    expect(route.code, route.stderr).toBe(0);
    expect(JSON.parse(route.stdout).route).toMatchObject({
      path: '/hello/world',
      image: 'ferrum-test/busybox',
      memory: 64,
      type: 'async',
    });
    const routes = await ferrum('functions', 'routes', 'list', 'cli-app');
    expect(routes.stdout).toMatch(
      /^PATH\s+IMAGE\s+TYPE\s+FORMAT\s+MEMORY\s+TIMEOUT\n\/hello\/world\s+ferrum-test\/busybox\s+async\s+default\s+64\s+30\n$/,
    );

    const noImage = await ferrum('functions', 'routes', 'create', 'cli-app', '/x');
    expect(noImage.code).toBe(2);
    expect(noImage.stderr).toMatch(/required option '--image <image>' not specified/);

    expect((await ferrum('functions', 'routes', 'delete', 'cli-app', '/hello/world')).code).toBe(0);
    expect(JSON.parse((await ferrum('functions', 'routes', 'list', 'cli-app', '--json')).stdout).routes).toEqual([]);
    expect((await ferrum('functions', 'apps', 'delete', 'cli-app')).code).toBe(0);
    expect(JSON.parse((await ferrum('functions', 'apps', 'list', '--json')).stdout).apps).toEqual([]);
  });

  it('calls a route with a body from a flag or stdin; an async call answers its call id', async () => {
    await ferrum(
      'functions',
      'routes',
      'create',
      'cli-calls',
      '/job',
      '--image',
      'ferrum-test/busybox',
      '--type',
      'async',
    );
    const called = await ferrum('functions', 'call', 'cli-calls', '/job', '--data', '{"n":1}', '--json');
    expect(called.code, called.stderr).toBe(0);
    const answer = JSON.parse(called.stdout);
    expect(answer.status).toBe(202);
    expect(answer.call_id).toMatch(/^[0-9a-f]{24}$/);
    expect(JSON.parse(answer.body)).toEqual({ call_id: answer.call_id });

    const piped = await session.cli.run(['functions', 'call', 'cli-calls', 'job'], {
      cwd: session.cwd,
      input: 'from stdin',
    });
    expect(piped.code, piped.stderr).toBe(0);
    expect(piped.stderr).toMatch(/^Fn-Call-Id: [0-9a-f]{24}\n$/);
    expect(JSON.parse(piped.stdout).call_id).toMatch(/^[0-9a-f]{24}$/);

    const missing = await ferrum('functions', 'call', 'cli-calls', '/nowhere');
    expect(missing).toMatchObject({ code: 1, stderr: 'ferrum: Route not found\n' });
  });
});
