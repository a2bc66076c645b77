import type { Browser, Page } from 'playwright-core';
import type { Runner } from '../runner/runner.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, screenshot, signedInPage, unlabelledControls } from './helpers/browser.js';
import { FunctionsClient } from './helpers/functions.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { FAST_WORKER_ENV, startRunner } from './helpers/worker.js';

// The dashboard's functions pages against the real functions API, with a runner running the calls.

let server: TestServer;
let browser: Browser;
let page: Page;
let outside: string[];
let runner: Runner;

beforeAll(async () => {
  server = await startTestServer(FAST_WORKER_ENV);
  runner = await startRunner(server);
  browser = await launchBrowser();
  ({ page, outside } = await signedInPage(browser, server.url));
});
afterAll(async () => {
  await browser?.close();
  await runner?.stop();
  await server?.stop();
});

const navTo = (name: string) =>
  page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name, exact: true }).click();
const functionsPath = (rest: string) => `/v1/apps${rest}?project_id=${server.projectId}`;

describe('dashboard: functions', () => {
  it('creates an app and a route, edits the route, and lists them', async () => {
    await navTo('Functions');
    await page.getByRole('heading', { name: 'Function apps' }).waitFor();
    await page.getByLabel('App name').fill('shop');
    await page.getByRole('button', { name: 'Create app' }).click();
    await page.getByRole('heading', { name: 'shop' }).waitFor();

    const newRoute = page.getByRole('form', { name: 'New route' });
    await newRoute.getByLabel('Path').fill('/hello');
    await newRoute.getByLabel('Image').fill('ferrum-test/busybox');
    await newRoute.getByLabel('Memory (MB)').fill('64');
    await newRoute.getByLabel('Route configuration (JSON object of strings)').fill('{"GREETING": "hi"}');
    await newRoute.getByLabel('Timeout (s)', { exact: true }).fill('20');
    await newRoute.getByRole('button', { name: 'Create route' }).click();
    await expect.poll(() => page.locator('main table').first().textContent(), { timeout: 15_000 }).toContain('/hello');
    expect(await page.locator('main table').first().textContent()).toContain('ferrum-test/busybox');

    await page.getByRole('button', { name: 'Edit route /hello' }).click();
    const editor = page.getByRole('form', { name: 'Edit route /hello' });
    await editor.getByLabel('Memory (MB)').fill('128');
    await editor.getByRole('button', { name: 'Save route' }).click();
    await expect.poll(() => page.locator('main table').first().textContent(), { timeout: 15_000 }).toContain('128 MB');
    const { routes } = (await server.http.get(functionsPath('/shop/routes'))).body;
    expect(routes).toEqual([
      expect.objectContaining({
        path: '/hello',
        image: 'ferrum-test/busybox',
        memory: 128,
        timeout: 20,
        config: { GREETING: 'hi' },
      }),
    ]);
    expect(await unlabelledControls(page)).toEqual([]);
  });

  it('lists the calls of the app, newest first, with their status, times and log', async () => {
    const fn = new FunctionsClient(server.http);
    await fn.route('shop', { path: '/echo', image: 'ferrum-test/fn-echo' });
    const first = await fn.call('POST', 'shop/echo', 'first');
    const failed = await fn.call('POST', 'shop/echo', 'exit=3');
    expect(first.status).toBe(200);
    expect(failed.status).toBe(502);
    const firstId = first.headers.get('fn-call-id')!;
    const failedId = failed.headers.get('fn-call-id')!;

    await page.goto(`${server.url}/#/functions`);
    await page.getByRole('link', { name: 'shop' }).click();
    await page.getByRole('heading', { name: 'Recent calls' }).waitFor();
    const rows = page.locator('main table', { hasText: 'Newest first' }).locator('tbody tr');
    await expect.poll(() => rows.count(), { timeout: 15_000 }).toBe(2);
    const [newest, older] = [await rows.nth(0).textContent(), await rows.nth(1).textContent()];
    expect(newest).toContain(failedId);
    expect(newest).toContain('error');
    expect(older).toContain(firstId);
    expect(older).toContain('success');
    expect(older).toContain('/echo');
    const record = await fn.record('shop', firstId);
    const shownCompletion = await page.evaluate((iso) => new Date(iso).toLocaleString(), record.completed_at);
    expect(older).toContain(shownCompletion);

    await page.getByRole('button', { name: `Log of call ${firstId}` }).click();
    await expect
      .poll(() => page.locator('#call-log').textContent(), { timeout: 15_000 })
      .toContain(`log of ${firstId}`);
    await screenshot(page, 'function-app');
  });

  it('deletes a route and an app, and says why an app with routes stays', async () => {
    await navTo('Functions');
    page.once('dialog', (dialog) => dialog.accept());
    await page.getByRole('button', { name: 'Delete app shop' }).click();
    await expect
      .poll(() => page.locator('#toast').textContent(), { timeout: 15_000 })
      .toContain('delete its routes first');
    expect((await server.http.get(functionsPath(''))).body.apps.map((app: { name: string }) => app.name)).toEqual([
      'shop',
    ]);

    await page.getByRole('link', { name: 'shop' }).click();
    await page.getByRole('heading', { name: 'shop' }).waitFor();
    for (const path of ['/hello', '/echo']) {
      page.once('dialog', (dialog) => dialog.accept());
      await page.getByRole('button', { name: `Delete route ${path}` }).click();
      await expect
        .poll(
          async () =>
            (await server.http.get(functionsPath('/shop/routes'))).body.routes.map((r: { path: string }) => r.path),
          { timeout: 15_000 },
        )
        .not.toContain(path);
      await page.getByRole('heading', { name: 'Routes' }).waitFor();
    }

    await navTo('Functions');
    await expect.poll(() => page.locator('main table').textContent(), { timeout: 15_000 }).toContain('shop');
    await screenshot(page, 'functions');
    page.once('dialog', (dialog) => dialog.accept());
    await page.getByRole('button', { name: 'Delete app shop' }).click();
    await expect
      .poll(async () => (await server.http.get(functionsPath(''))).body.apps.length, { timeout: 15_000 })
      .toBe(0);
  });
});

describe('dashboard: network', () => {
  it('sent no request beyond this machine', () => {
    expect(outside).toEqual([]);
  });
});
