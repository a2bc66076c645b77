import http from 'node:http';
import type { Browser } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser } from '../../helpers/browser.js';
import { FunctionsClient } from '../../helpers/functions.js';
import { HttpClient } from '../../helpers/http.js';
import { FAST_WORKER_ENV } from '../../helpers/worker.js';
import { createTenant, type Tenant } from '../../helpers/adversarial/hardened-server.js';
import { scaled } from '../../helpers/pace.js';
import { useHardenedServer } from '../../helpers/adversarial/hardened-test-file.js';
import { useRunner } from '../../helpers/worker-test-file.js';

// A tenant's function answers with a page of its own (script, cookies). Where the dashboard
// lives, that page must be inert: no script with the dashboard's origin, no cookie set there.
// Functions may have an origin of their own (a port, a host name) where only calls are served.

const FUNCTIONS_HOST = 'functions.ferrum.test';
const server = useHardenedServer({
  ...FAST_WORKER_ENV,
  FERRUM_FUNCTIONS_PORT: '0',
  FERRUM_FUNCTIONS_HOST: FUNCTIONS_HOST,
});
useRunner(server, FAST_WORKER_ENV);
let tenant: Tenant;
let functionsUrl: string;
const app = `origin-${process.pid}`;
/** The JSON echo of the test function carries the request body: as HTML, this script runs unless sandboxed. */
const PAGE = "<script>document.title = 'script-ran'; document.cookie = 'planted=1; path=/'</script>";
const PAGE_HEADERS = { 'x-header': 'content-type: text/html' };

beforeAll(async () => {
  tenant = await createTenant(server, 'origin-tenant');
  functionsUrl = `http://127.0.0.1:${server.running.functionsPort}`;
  expect((await tenant.http.post('/v1/apps', { app: { name: app, project_id: tenant.projectId } })).status).toBe(200);
  await new FunctionsClient(tenant.http).route(app, {
    path: '/page',
    image: 'ferrum-test/fn-hot-json',
    format: 'json',
  });
}, scaled(60_000));

/** A request to the main listener with the Host header given (fetch does not let a test set Host). */
function withHost(host: string, path: string, headers: Record<string, string> = {}) {
  const url = new URL(server.url);
  return new Promise<{ status: number; headers: http.IncomingHttpHeaders }>((resolve, reject) => {
    const request = http.request(
      { host: url.hostname, port: url.port, path, method: 'POST', headers: { ...headers, host } },
      (response) => {
        response.resume();
        response.on('end', () => resolve({ status: response.statusCode!, headers: response.headers }));
      },
    );
    request.on('error', reject);
    request.end('x');
  });
}

describe('function answers on the dashboard origin', () => {
  it('carry a sandbox CSP and set no cookie', async () => {
    const fn = new FunctionsClient(tenant.http);
    const answer = await fn.call('POST', `${app}/page`, 'x', { 'x-header': 'set-cookie: session=stolen; Path=/' });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.headers.get('content-security-policy')).toMatch(/(^|, )sandbox$/);
    expect(answer.headers.get('set-cookie')).toBeNull();
    const missing = await fn.call('GET', `${app}/nowhere`);
    expect(missing.status).toBe(404);
    expect(missing.headers.get('content-security-policy')).toMatch(/sandbox/);
  });

  it('run no script in a browser', async () => {
    const browser: Browser = await launchBrowser();
    try {
      const context = await browser.newContext({ extraHTTPHeaders: PAGE_HEADERS });
      const page = await context.newPage();
      // A GET carries no body: a route's page is posted by a form the test builds on the dashboard origin.
      await page.goto(`${server.url}/health`);
      await page.setContent(
        `<form method="post" action="${server.url}/r/${app}/page" enctype="text/plain"><textarea name="a">${PAGE.replaceAll('<', '&lt;')}</textarea></form>`,
      );
      await Promise.all([page.waitForNavigation(), page.evaluate(() => document.forms[0]!.submit())]);
      expect(await page.content()).toContain('script-ran');
      expect(await page.title()).not.toBe('script-ran');
      expect(await context.cookies(server.url)).toEqual([]);
    } finally {
      await browser.close();
    }
  });
});

describe("the functions' own origin", () => {
  it('answers calls as the function made them, on its port and its host name', async () => {
    const onPort = await new HttpClient(functionsUrl, null).request('POST', `/r/${app}/page`, {
      raw: 'x',
      headers: { 'x-header': 'set-cookie: own=1; Path=/' },
    });
    expect(onPort.status, onPort.text).toBe(200);
    expect(onPort.headers.get('set-cookie')).toBe('own=1; Path=/');
    expect(onPort.headers.get('content-security-policy')).toBeNull();
    const onHost = await withHost(FUNCTIONS_HOST, `/r/${app}/page`, { 'x-header': 'set-cookie: own=1; Path=/' });
    expect(onHost.status).toBe(200);
    expect(onHost.headers['set-cookie']).toEqual(['own=1; Path=/']);
    expect(onHost.headers['content-security-policy']).toBeUndefined();
  });

  it('serves nothing but calls and /health: no dashboard, no API', async () => {
    const functions = new HttpClient(functionsUrl, tenant.token);
    for (const path of ['/', '/ui/app.js', '/v1/apps', `/1/projects/${tenant.projectId}`, '/metrics'])
      expect((await functions.get(path)).status, path).toBe(404);
    expect((await functions.get('/health', { token: null })).status).toBe(200);
    expect((await withHost(FUNCTIONS_HOST, '/')).status).toBe(404);
    expect((await withHost(FUNCTIONS_HOST, '/v1/apps')).status).toBe(404);
  });
});

describe('the dashboard', () => {
  it('sends a strict CSP: its own scripts only, nothing inline, no framing', async () => {
    for (const path of ['/', '/ui/app.js']) {
      const response = await new HttpClient(server.url, null).get(path);
      expect(response.status).toBe(200);
      const csp = response.headers.get('content-security-policy') ?? '';
      expect(csp).toContain("script-src 'self'");
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).not.toContain('unsafe-inline');
    }
  });
});
