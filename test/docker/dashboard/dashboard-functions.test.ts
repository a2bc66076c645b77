import { describe, expect, it } from 'vitest';
import { screenshot, unlabelledControls } from '../../helpers/browser.js';
import { FunctionsClient } from '../../helpers/functions.js';
import { useDashboard } from '../../helpers/dashboard.js';
import { FAST_WORKER_ENV } from '../../helpers/worker.js';
import { scaled } from '../../helpers/pace.js';

// The dashboard's functions pages against the real functions API, with a runner running the calls.

const session = useDashboard({ env: FAST_WORKER_ENV, runner: true });

const functionsPath = (rest: string) => `/v1/apps${rest}?project_id=${session.server.projectId}`;

describe('dashboard: functions', () => {
  it('creates an app and a route, edits the route, and lists them', async () => {
    await session.navTo('Functions');
    await session.page.getByRole('heading', { name: 'Function apps' }).waitFor();
    await session.page.getByLabel('App name').fill('shop');
    await session.page.getByRole('button', { name: 'Create app' }).click();
    await session.page.getByRole('heading', { name: 'shop' }).waitFor();

    const newRoute = session.page.getByRole('form', { name: 'New route' });
    await newRoute.getByLabel('Path').fill('/hello');
    await newRoute.getByLabel('Image').fill('ferrum-test/busybox');
    await newRoute.getByLabel('Memory (MB)').fill('64');
    await newRoute.getByLabel('Route configuration (JSON object of strings)').fill('{"GREETING": "hi"}');
    await newRoute.getByLabel('Timeout (s)', { exact: true }).fill('20');
    await newRoute.getByRole('button', { name: 'Create route' }).click();
    await expect
      .poll(() => session.page.locator('main table').first().textContent(), { timeout: scaled(15_000) })
      .toContain('/hello');
    expect(await session.page.locator('main table').first().textContent()).toContain('ferrum-test/busybox');

    await session.page.getByRole('button', { name: 'Edit route /hello' }).click();
    const editor = session.page.getByRole('form', { name: 'Edit route /hello' });
    await editor.getByLabel('Memory (MB)').fill('128');
    await editor.getByRole('button', { name: 'Save route' }).click();
    await expect
      .poll(() => session.page.locator('main table').first().textContent(), { timeout: scaled(15_000) })
      .toContain('128 MB');
    const { routes } = (await session.server.http.get(functionsPath('/shop/routes'))).body;
    expect(routes).toEqual([
      expect.objectContaining({
        path: '/hello',
        image: 'ferrum-test/busybox',
        memory: 128,
        timeout: 20,
        config: { GREETING: 'hi' },
      }),
    ]);
    expect(await unlabelledControls(session.page)).toEqual([]);
  });

  it('lists the calls of the app, newest first, with their status, times and log', async () => {
    const fn = new FunctionsClient(session.server.http);
    await fn.route('shop', { path: '/echo', image: 'ferrum-test/fn-echo' });
    const first = await fn.call('POST', 'shop/echo', 'first');
    const failed = await fn.call('POST', 'shop/echo', 'exit=3');
    expect(first.status).toBe(200);
    expect(failed.status).toBe(502);
    const firstId = first.headers.get('fn-call-id')!;
    const failedId = failed.headers.get('fn-call-id')!;
    // Ended calls' records are written in batches (every 100 ms): the page is read once both are.
    for (const [id, status] of [
      [firstId, 'success'],
      [failedId, 'error'],
    ]) {
      await expect.poll(async () => (await fn.record('shop', id!)).status, { timeout: scaled(15_000) }).toBe(status);
    }

    await session.page.goto(`${session.server.url}/#/functions`);
    await session.page.getByRole('link', { name: 'shop' }).click();
    await session.page.getByRole('heading', { name: 'Recent calls' }).waitFor();
    const rows = session.page.locator('main table', { hasText: 'Newest first' }).locator('tbody tr');
    await expect.poll(() => rows.count(), { timeout: scaled(15_000) }).toBe(2);
    const [newest, older] = [await rows.nth(0).textContent(), await rows.nth(1).textContent()];
    expect(newest).toContain(failedId);
    expect(newest).toContain('error');
    expect(older).toContain(firstId);
    expect(older).toContain('success');
    expect(older).toContain('/echo');
    const record = await fn.record('shop', firstId);
    const shownCompletion = await session.page.evaluate((iso) => new Date(iso).toLocaleString(), record.completed_at);
    expect(older).toContain(shownCompletion);

    await session.page.getByRole('button', { name: `Log of call ${firstId}` }).click();
    await expect
      .poll(() => session.page.locator('#call-log').textContent(), { timeout: scaled(15_000) })
      .toContain(`log of ${firstId}`);
    await screenshot(session.page, 'function-app');
  });

  it('deletes a route and an app, and says why an app with routes stays', async () => {
    await session.navTo('Functions');
    session.page.once('dialog', (dialog) => dialog.accept());
    await session.page.getByRole('button', { name: 'Delete app shop' }).click();
    await expect
      .poll(() => session.page.locator('#toast').textContent(), { timeout: scaled(15_000) })
      .toContain('delete its routes first');
    expect(
      (await session.server.http.get(functionsPath(''))).body.apps.map((app: { name: string }) => app.name),
    ).toEqual(['shop']);

    await session.page.getByRole('link', { name: 'shop' }).click();
    await session.page.getByRole('heading', { name: 'shop' }).waitFor();
    for (const path of ['/hello', '/echo']) {
      session.page.once('dialog', (dialog) => dialog.accept());
      await session.page.getByRole('button', { name: `Delete route ${path}` }).click();
      await expect
        .poll(
          async () =>
            (await session.server.http.get(functionsPath('/shop/routes'))).body.routes.map(
              (r: { path: string }) => r.path,
            ),
          { timeout: scaled(15_000) },
        )
        .not.toContain(path);
      await session.page.getByRole('heading', { name: 'Routes' }).waitFor();
    }

    await session.navTo('Functions');
    await expect
      .poll(() => session.page.locator('main table').textContent(), { timeout: scaled(15_000) })
      .toContain('shop');
    await screenshot(session.page, 'functions');
    session.page.once('dialog', (dialog) => dialog.accept());
    await session.page.getByRole('button', { name: 'Delete app shop' }).click();
    await expect
      .poll(async () => (await session.server.http.get(functionsPath(''))).body.apps.length, {
        timeout: scaled(15_000),
      })
      .toBe(0);
  });
});

describe('dashboard: network', () => {
  it('sent no request beyond this machine', () => {
    expect(session.outside).toEqual([]);
  });
});
