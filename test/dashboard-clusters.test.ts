import fs from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import type { Runner } from '../runner/runner.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, screenshot, signedInPage, unlabelledControls } from './helpers/browser.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { FAST_WORKER_ENV, startRunner } from './helpers/worker.js';

// The dashboard's clusters pages against the real clusters API, with a real runner as an instance.
// The clusters API lands from its own branch; until it is merged here these tests wait for it.
const CLUSTERS_API_PRESENT = fs.existsSync(new URL('../api/worker-v2/clusters.ts', import.meta.url));

let server: TestServer;
let browser: Browser;
let page: Page;
let outside: string[];
let runner: Runner | undefined;

beforeAll(async () => {
  if (!CLUSTERS_API_PRESENT) return;
  server = await startTestServer(FAST_WORKER_ENV);
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
const MIB = 1024 * 1024;

async function clusterNamed(name: string): Promise<any> {
  const { clusters } = (await server.http.get('/2/clusters')).body;
  return clusters.find((cluster: { name: string }) => cluster.name === name);
}

describe.runIf(CLUSTERS_API_PRESENT)('dashboard: clusters', () => {
  let clusterId: string;

  it('lists a cluster created through the API and shows its configuration, state and instances', async () => {
    const created = await server.http.post('/2/clusters', {
      name: 'render-farm',
      memory: 1024 * MIB,
      autoscale: { runners_max: 3 },
    });
    expect(created.status).toBe(200);
    clusterId = created.body.cluster.id;
    runner = await startRunner(server, { FERRUM_RUNNER_CLUSTER: clusterId, FERRUM_RUNNER_SLOTS: '3' });

    await navTo('Clusters');
    await page.getByRole('heading', { name: 'Clusters' }).waitFor();
    await expect.poll(() => page.locator('main table').textContent(), { timeout: 15_000 }).toContain(clusterId);
    expect(await page.locator('main table').textContent()).toContain('1024 MiB');
    expect(await unlabelledControls(page)).toEqual([]);
    await screenshot(page, 'clusters');

    await page.getByRole('link', { name: 'render-farm' }).click();
    await page.getByRole('heading', { name: 'render-farm' }).waitFor();
    const config = await page.locator('#cluster-config').textContent();
    expect(config).toContain(clusterId);
    expect(config).toContain('runners_max: 3');
    expect(await page.locator('#cluster-stats').textContent()).toContain('Queued tasks0');
    await expect
      .poll(
        async () => {
          await page.goto(`${server.url}/#/clusters/${clusterId}?at=${Date.now()}`);
          await page.getByRole('heading', { name: 'Instances' }).waitFor();
          return page.locator('#cluster-instances table').textContent();
        },
        { timeout: 15_000, interval: 300 },
      )
      .toContain('LIVE');
    expect(await page.locator('#cluster-instances table').textContent()).toContain('3 / 3');
    expect(await page.locator('#cluster-stats').textContent()).toContain('3 available of 3');
    await screenshot(page, 'cluster');
  });

  it('terminates the instances after a confirmation', async () => {
    page.once('dialog', (dialog) => dialog.dismiss());
    await page.getByRole('button', { name: 'Terminate instances' }).click();
    expect(await page.locator('#cluster-instances table').textContent()).toContain('LIVE');

    page.once('dialog', (dialog) => dialog.accept());
    await page.getByRole('button', { name: 'Terminate instances' }).click();
    await expect
      .poll(() => page.locator('#toast').textContent(), { timeout: 15_000 })
      .toContain('Terminating 1 instances');
    // The runner drains once set to KILL; the autoscaler then marks it terminated.
    await expect
      .poll(() => page.locator('#cluster-instances table').textContent(), { timeout: 15_000 })
      .toMatch(/KILL|TERMINATE/);
    await screenshot(page, 'cluster-terminating');
  });

  it('creates a cluster from the form and deletes it', async () => {
    await navTo('Clusters');
    const form = page.getByRole('form', { name: 'New cluster' });
    await form.getByLabel('Cluster name').fill('from-the-form');
    await form.getByLabel('Memory per runner (MiB)').fill('256');
    await form.getByLabel('Share with (e-mails, comma-separated)').fill('admin@ferrum.local');
    await form.getByLabel('Maximum runners').fill('5');
    await form.getByRole('button', { name: 'Create cluster' }).click();
    await page.getByRole('heading', { name: 'from-the-form' }).waitFor();
    const created = await clusterNamed('from-the-form');
    expect(created.memory).toBe(256 * MIB);
    const full = (await server.http.get(`/2/clusters/${created.id}`)).body.cluster;
    expect(full.autoscale).toMatchObject({ provider: 'static', runners_max: 5 });
    expect(await page.locator('#cluster-config').textContent()).toContain('admin@ferrum.local');

    page.once('dialog', (dialog) => dialog.accept());
    await page.getByRole('button', { name: 'Delete cluster' }).click();
    await page.getByRole('heading', { name: 'Clusters' }).waitFor();
    expect(await clusterNamed('from-the-form')).toBeUndefined();
  });

  it('shows an AWS cluster without any of its secrets, and a form error for a missing one', async () => {
    const secrets = {
      access_key_id: 'AKIADASHBOARDTEST',
      secret_access_key: 'dashboard-secret-key',
      docker_auth: 'dashboard-docker-auth',
    };
    const created = await server.http.post('/2/clusters', {
      name: 'cloud',
      autoscale: {
        provider: 'aws',
        aws: {
          region: 'eu-west-1',
          access_key_id: secrets.access_key_id,
          secret_access_key: secrets.secret_access_key,
        },
        docker_auth: secrets.docker_auth,
        docker_email: 'ops@example.com',
      },
    });
    expect(created.status).toBe(200);
    await page.goto(`${server.url}/#/clusters/${created.body.cluster.id}`);
    await page.getByRole('heading', { name: 'cloud' }).waitFor();
    expect(await page.locator('#cluster-config').textContent()).toContain('region: eu-west-1');
    const html = await page.content();
    for (const secret of Object.values(secrets)) expect(html).not.toContain(secret);

    await navTo('Clusters');
    const form = page.getByRole('form', { name: 'New cluster' });
    await form.getByLabel('Cluster name').fill('no-keys');
    await form.getByLabel('Instances from').selectOption('aws');
    await form.getByRole('button', { name: 'Create cluster' }).click();
    await expect.poll(() => form.getByRole('alert').textContent(), { timeout: 15_000 }).toMatch(/access_key_id/);
    expect(await clusterNamed('no-keys')).toBeUndefined();
  });

  it('shows the default cluster', async () => {
    await navTo('Clusters');
    await page.getByRole('link', { name: 'default cluster' }).click();
    await page.getByRole('heading', { name: 'default' }).waitFor();
    expect(await page.getByRole('button', { name: 'Delete cluster' }).count()).toBe(0);
  });

  it('sent no request beyond this machine', () => {
    expect(outside).toEqual([]);
  });
});
