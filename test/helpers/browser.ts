import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const SCREENSHOT_DIR = path.resolve('test-output/screenshots');

/** Debian's Chromium, headless, with nothing that reaches beyond this machine. */
export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-dev-shm-usage',
      // Nothing beyond this machine: every other host name fails to resolve.
      '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE localhost, EXCLUDE 127.0.0.1',
    ],
  });
}

export async function screenshot(page: Page, name: string): Promise<string> {
  fs.mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const file = path.join(SCREENSHOT_DIR, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  return file;
}

const LOCAL_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);

function isLocal(url: string): boolean {
  const parsed = new URL(url);
  return parsed.protocol === 'data:' || parsed.protocol === 'blob:' || LOCAL_HOSTS.has(parsed.hostname);
}

/**
 * Records every request of the context that would leave this machine: the dashboard must need no
 * outside network (no CDN, fonts or analytics). Returns the live record. (A listener rather than
 * route interception, which would turn the browser's HTTP cache off; the browser itself resolves
 * no outside host name, see launchBrowser.)
 */
export function recordOutsideRequests(context: BrowserContext): string[] {
  const outside: string[] = [];
  context.on('request', (request) => {
    if (!isLocal(request.url())) outside.push(request.url());
  });
  return outside;
}

/** The inputs, selects and textareas of the page without a label (<label for>, a wrapping label or aria-label). */
export async function unlabelledControls(page: Page): Promise<string[]> {
  return page.$$eval('input:not([type=hidden]), select, textarea', (controls) =>
    controls
      .filter(
        (control) =>
          !(control as unknown as { labels?: { length: number } }).labels?.length &&
          !control.getAttribute('aria-label'),
      )
      .map((control) => control.outerHTML),
  );
}

/** A fresh tab that refuses outside requests, signed in to the dashboard as the bootstrap admin. */
export async function signedInPage(browser: Browser, serverUrl: string): Promise<{ page: Page; outside: string[] }> {
  const context = await browser.newContext();
  const outside = recordOutsideRequests(context);
  const page = await context.newPage();
  await page.goto(serverUrl + '/');
  await page.getByLabel('E-mail').fill('admin@ferrum.local');
  await page.getByLabel('Password').fill('admin-password');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('link', { name: 'Tokens' }).waitFor();
  return { page, outside };
}
