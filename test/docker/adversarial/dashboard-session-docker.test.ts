import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser } from '../../helpers/browser.js';
import { FunctionsClient } from '../../helpers/functions.js';
import { HttpClient } from '../../helpers/http.js';
import { FAST_WORKER_ENV } from '../../helpers/worker.js';
import { createTenant, type Tenant } from '../../helpers/adversarial/hardened-server.js';
import { scaled } from '../../helpers/pace.js';
import { useHardenedServer } from '../../helpers/adversarial/hardened-test-file.js';
import { useRunner } from '../../helpers/worker-test-file.js';

// Script that runs on the dashboard's origin (a function's page, an injected one) must find no
// credential to read, and a page of another origin cannot act with the dashboard's session.

const server = useHardenedServer(FAST_WORKER_ENV);
useRunner(server, FAST_WORKER_ENV);
let browser: Browser;
let tenant: Tenant;
const app = `session-${process.pid}`;

beforeAll(async () => {
  browser = await launchBrowser();
  tenant = await createTenant(server, 'session-tenant');
  expect((await tenant.http.post('/v1/apps', { app: { name: app, project_id: tenant.projectId } })).status).toBe(200);
  await new FunctionsClient(tenant.http).route(app, { path: '/env', image: 'ferrum-test/busybox' });
}, scaled(60_000));

afterAll(async () => {
  await browser?.close();
});

/** Signs the tenant in on a new browser page; answers the page and the session cookie's value. */
async function signedIn() {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(server.url + '/');
  await page.getByLabel('E-mail').fill(tenant.email);
  await page.getByLabel('Password').fill(tenant.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('button', { name: 'Sign out' }).waitFor();
  const cookie = (await context.cookies(server.url)).find((entry) => entry.name === 'ferrum_session');
  return { context, page, cookie };
}

describe("the dashboard's session", () => {
  it('is an HttpOnly, SameSite=Strict cookie; no script on the origin can read the token', async () => {
    const { context, page, cookie } = await signedIn();
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/' });
    const readable = await page.evaluate(() =>
      JSON.stringify({ cookie: document.cookie, session: { ...sessionStorage }, local: { ...localStorage } }),
    );
    expect(readable).not.toContain(cookie!.value);
    expect((await new HttpClient(server.url, cookie!.value).get('/1/projects')).status).toBe(200);
    await context.close();
  });

  it('signs in requests only with the dashboard header (no CSRF), reads included', async () => {
    const { context, page, cookie } = await signedIn();
    const jar = { cookie: `ferrum_session=${cookie!.value}` };
    const plain = new HttpClient(server.url, null);
    expect((await plain.get('/1/projects', { headers: jar })).status).toBe(403);
    expect((await plain.get('/1/projects', { headers: { ...jar, 'x-ferrum-dashboard': '1' } })).status).toBe(200);
    const forged = await plain.post('/1/projects', { name: 'forged' }, { headers: jar });
    expect(forged.status).toBe(403);
    expect(forged.body.msg).toContain('x-ferrum-dashboard');
    const fromDashboard = await plain.post(
      '/1/projects',
      { name: 'from-dashboard' },
      { headers: { ...jar, 'x-ferrum-dashboard': '1' } },
    );
    expect([200, 201]).toContain(fromDashboard.status);
    // A second session cookie planted by a page of the same host (cookies ignore ports) is not taken.
    const tossed = { cookie: `ferrum_session=planted-by-a-function; ferrum_session=${cookie!.value}` };
    expect((await plain.get('/1/projects', { headers: { ...tossed, 'x-ferrum-dashboard': '1' } })).status).toBe(401);
    // Signing out clears the cookie.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await expect
      .poll(async () => (await context.cookies(server.url)).some((entry) => entry.name === 'ferrum_session'))
      .toBe(false);
    await context.close();
  });

  it('never reaches a function, which the browser calls with the cookie', async () => {
    const { context, cookie } = await signedIn();
    const called = await new FunctionsClient(tenant.http).call('POST', `${app}/env`, 'env', {
      cookie: `theirs=1; ferrum_session=${cookie!.value}`,
    });
    expect(called.status, called.text).toBe(200);
    expect(called.text).toContain('HEADER_COOKIE=theirs=1');
    expect(called.text).not.toContain(cookie!.value);
    await context.close();
  });
});
