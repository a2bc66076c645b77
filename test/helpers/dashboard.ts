import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import type { Runner } from '../../runner/runner.js';
import { launchBrowser, recordOutsideRequests, signedInPage } from './browser.js';
import type { TestServer } from './server.js';
import { useTestServer } from './test-file.js';
import { startRunner } from './worker.js';

/** A dashboard suite's server, browser and tab (with the record of requests that left the machine). */
export interface DashboardSession {
  server: TestServer;
  browser: Browser;
  page: Page;
  outside: string[];
  /** With `runner: true`: a runner serving the server's default cluster. */
  runner?: Runner;
  /** Follows a link of the main navigation bar. */
  navTo(name: string): Promise<void>;
}

export interface DashboardOptions {
  /** The server's settings. */
  env?: Record<string, string>;
  /** Start a runner for the default cluster (stopped before the server). */
  runner?: boolean;
  /** Open the tab signed in as the bootstrap admin (the default), or on a fresh context. */
  signedIn?: boolean;
  /** false: set nothing up (a suite that waits for a feature not merged yet). */
  enabled?: boolean;
}

/**
 * The shared set-up of the dashboard suites: before the file's tests a server (useTestServer), a runner if
 * asked, Debian's headless Chromium and a tab; after them, all closed. Read the fields inside tests.
 */
export function useDashboard(options: DashboardOptions = {}): DashboardSession {
  const session = {
    navTo: (name: string) =>
      session.page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name, exact: true }).click(),
  } as DashboardSession;
  if (options.enabled === false) return session;
  session.server = useTestServer(options.env);
  beforeAll(async () => {
    if (options.runner) session.runner = await startRunner(session.server);
    session.browser = await launchBrowser();
    if (options.signedIn === false) {
      const context = await session.browser.newContext();
      session.outside = recordOutsideRequests(context);
      session.page = await context.newPage();
    } else {
      ({ page: session.page, outside: session.outside } = await signedInPage(session.browser, session.server.url));
    }
  });
  afterAll(async () => {
    await session.browser?.close();
    await session.runner?.stop();
  });
  return session;
}
