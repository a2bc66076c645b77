import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, screenshot, signedInPage, unlabelledControls } from './helpers/browser.js';
import { startTestServer, type TestServer } from './helpers/server.js';

// The dashboard's functions pages against the real functions API.

let server: TestServer;
let browser: Browser;
let page: Page;
let outside: string[];

beforeAll(async () => {
  server = await startTestServer();
  browser = await launchBrowser();
  ({ page, outside } = await signedInPage(browser, server.url));
});
afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

const navTo = (name: string) => page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name, exact: true }).click();
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
    expect(routes).toEqual([expect.objectContaining({ path: '/hello', image: 'ferrum-test/busybox', memory: 128, timeout: 20, config: { GREETING: 'hi' } })]);
    expect(await unlabelledControls(page)).toEqual([]);
  });

  it('lists the calls of the app, newest first, with their status and log', async () => {
    // An async route answers 202 at once and keeps a call record whether or not a runner takes it yet.
    await page.getByRole('button', { name: 'Edit route /hello' }).click();
    const editor = page.getByRole('form', { name: 'Edit route /hello' });
    await editor.getByLabel('Type').selectOption('async');
    await editor.getByRole('button', { name: 'Save route' }).click();
    await expect.poll(() => page.locator('main table').first().textContent(), { timeout: 15_000 }).toContain('async');

    const first = await server.http.post('/r/shop/hello', 'first');
    const second = await server.http.post('/r/shop/hello', 'second');
    expect([first.status, second.status]).toEqual([202, 202]);
    await page.goto(`${server.url}/#/functions`);
    await page.getByRole('link', { name: 'shop' }).click();
    await page.getByRole('heading', { name: 'Recent calls' }).waitFor();
    const rows = page.locator('main table', { hasText: 'Newest first' }).locator('tbody tr');
    await expect.poll(() => rows.count(), { timeout: 15_000 }).toBe(2);
    expect(await rows.nth(0).textContent()).toContain(second.body.call_id);
    expect(await rows.nth(1).textContent()).toContain(first.body.call_id);
    expect(await rows.nth(0).textContent()).toContain('/hello');

    await page.getByRole('button', { name: `Log of call ${first.body.call_id}` }).click();
    await expect.poll(() => page.locator('#call-log h3').textContent(), { timeout: 15_000 }).toContain(first.body.call_id);
    await screenshot(page, 'function-app');
  });

  it('deletes a route and an app, and says why an app with routes stays', async () => {
    await navTo('Functions');
    page.once('dialog', (dialog) => dialog.accept());
    await page.getByRole('button', { name: 'Delete app shop' }).click();
    await expect.poll(() => page.locator('#toast').textContent(), { timeout: 15_000 }).toContain('delete its routes first');
    expect((await server.http.get(functionsPath(''))).body.apps.map((app: { name: string }) => app.name)).toEqual(['shop']);

    await page.getByRole('link', { name: 'shop' }).click();
    await page.getByRole('heading', { name: 'shop' }).waitFor();
    page.once('dialog', (dialog) => dialog.accept());
    await page.getByRole('button', { name: 'Delete route /hello' }).click();
    await expect.poll(async () => (await server.http.get(functionsPath('/shop/routes'))).body.routes.length, { timeout: 15_000 }).toBe(0);

    await navTo('Functions');
    await expect.poll(() => page.locator('main table').textContent(), { timeout: 15_000 }).toContain('shop');
    await screenshot(page, 'functions');
    page.once('dialog', (dialog) => dialog.accept());
    await page.getByRole('button', { name: 'Delete app shop' }).click();
    await expect.poll(async () => (await server.http.get(functionsPath(''))).body.apps.length, { timeout: 15_000 }).toBe(0);
  });
});

describe('dashboard: network', () => {
  it('sent no request beyond this machine', () => {
    expect(outside).toEqual([]);
  });
});
