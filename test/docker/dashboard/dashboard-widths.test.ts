import { beforeAll, describe, expect, it } from 'vitest';
import { screenshot } from '../../helpers/browser.js';
import { MqClient, uniqueQueue } from '../../helpers/mq.js';
import { useDashboard } from '../../helpers/dashboard.js';
import { WorkerClient } from '../../helpers/worker.js';
import { scaled } from '../../helpers/pace.js';

// Every page at a desktop and a phone width: nothing wider than the window, the navigation
// wrapping inside its dark bar (its links stay light on dark), and the charts' axis ticks nice.
const session = useDashboard();
const WIDTHS = [1280, 375];
let pages: string[];

beforeAll(async () => {
  const mq = new MqClient(session.server.http, session.server.projectId);
  const worker = new WorkerClient(session.server.http, session.server.projectId);
  const queue = uniqueQueue('a-rather-long-queue-name-that-could-widen-a-phone-page');
  await mq.postBodies(queue, 'x'.repeat(300));
  const cacheName = 'width-cache';
  await session.server.http.put(`/1/projects/${session.server.projectId}/caches/${cacheName}/items/k`, { value: 'v' });
  const codeId = await worker.upload({ name: 'width-code', image: 'ferrum-test/busybox' });
  const taskId = await worker.queue('width-code', 'p');
  pages = [
    'overview',
    'queues',
    `queues/${queue}`,
    'caches',
    `caches/${cacheName}`,
    'codes',
    `codes/${codeId}`,
    'tasks',
    `tasks/${taskId}`,
    'schedules',
    'clusters',
    'clusters/default',
    'functions',
    'projects',
    `projects/${session.server.projectId}`,
    'tokens',
    'signin',
  ];
});

/** How far the page is wider than the window, and nav links drawn outside the header bar. */
async function layoutFaults() {
  return session.page.evaluate(() => {
    const root = document.documentElement;
    const header = document.querySelector('header.top')!.getBoundingClientRect();
    const outsideBar = [...document.querySelectorAll('#nav a')]
      .filter((link) => link.getBoundingClientRect().bottom > header.bottom + 0.5)
      .map((link) => link.textContent);
    return { overflow: root.scrollWidth - root.clientWidth, outsideBar };
  });
}

describe('dashboard pages at desktop and phone widths', () => {
  for (const width of WIDTHS) {
    it(`shows every page at ${width} px with no horizontal overflow`, async () => {
      await session.page.setViewportSize({ width, height: 800 });
      for (const page of pages) {
        await session.page.goto(`${session.server.url}/#/${page}`);
        await session.page.locator('main h1').waitFor({ timeout: scaled(15_000) });
        await session.page.locator('main[aria-busy]').waitFor({ state: 'detached', timeout: scaled(15_000) });
        expect({ page, ...(await layoutFaults()) }).toEqual({ page, overflow: 0, outsideBar: [] });
      }
      await screenshot(session.page, `widths-${width}-last-page`);
    });
  }

  it('labels the gridlines of an empty chart 0 and 1, both charts under one "Last hour"', async () => {
    await session.page.setViewportSize({ width: 1280, height: 800 });
    await session.page.goto(`${session.server.url}/#/overview`);
    const bars = session.page.getByRole('img', { name: /Tasks finished per minute/ });
    await bars.waitFor();
    expect(await bars.locator('text.y-tick').allTextContents()).toEqual(['0', '1']);
    expect(await session.page.getByRole('heading', { name: /last hour/i }).allTextContents()).toEqual(['Last hour']);
  });
});
