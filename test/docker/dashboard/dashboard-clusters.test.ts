import fs from 'node:fs';
import type { Runner } from '../../../runner/runner.js';
import { afterAll, describe, expect, it } from 'vitest';
import { screenshot, unlabelledControls } from '../../helpers/browser.js';
import { useDashboard } from '../../helpers/dashboard.js';
import { FAST_WORKER_ENV, startRunner } from '../../helpers/worker.js';
import { scaled } from '../../helpers/pace.js';

// The dashboard's clusters pages against the real clusters API, with a real runner as an instance.
// The clusters API lands from its own branch; until it is merged here these tests wait for it.
const CLUSTERS_API_PRESENT = fs.existsSync(new URL('../../../api/worker-v2/clusters.ts', import.meta.url));

let runner: Runner | undefined;
const session = useDashboard({ env: FAST_WORKER_ENV, enabled: CLUSTERS_API_PRESENT });

afterAll(async () => {
  await runner?.stop();
});

const MIB = 1024 * 1024;

async function clusterNamed(name: string): Promise<any> {
  const { clusters } = (await session.server.http.get('/2/clusters')).body;
  return clusters.find((cluster: { name: string }) => cluster.name === name);
}

describe.runIf(CLUSTERS_API_PRESENT)('dashboard: clusters', () => {
  let clusterId: string;

  it('lists a cluster created through the API and shows its configuration, state and instances', async () => {
    const created = await session.server.http.post('/2/clusters', {
      name: 'render-farm',
      memory: 1024 * MIB,
      autoscale: { runners_max: 3 },
    });
    expect(created.status).toBe(200);
    clusterId = created.body.cluster.id;
    runner = await startRunner(session.server, { FERRUM_RUNNER_CLUSTER: clusterId, FERRUM_RUNNER_SLOTS: '3' });

    await session.navTo('Clusters');
    await session.page.getByRole('heading', { name: 'Clusters' }).waitFor();
    await expect
      .poll(() => session.page.locator('main table').textContent(), { timeout: scaled(15_000) })
      .toContain(clusterId);
    expect(await session.page.locator('main table').textContent()).toContain('1024 MiB');
    expect(await unlabelledControls(session.page)).toEqual([]);
    await screenshot(session.page, 'clusters');

    await session.page.getByRole('link', { name: 'render-farm' }).click();
    await session.page.getByRole('heading', { name: 'render-farm' }).waitFor();
    const config = await session.page.locator('#cluster-config').textContent();
    expect(config).toContain(clusterId);
    expect(config).toContain('runners_max: 3');
    expect(await session.page.locator('#cluster-stats').textContent()).toContain('Queued tasks0');
    await expect
      .poll(
        async () => {
          await session.page.goto(`${session.server.url}/#/clusters/${clusterId}?at=${Date.now()}`);
          await session.page.getByRole('heading', { name: 'Instances' }).waitFor();
          return session.page.locator('#cluster-instances table').textContent();
        },
        { timeout: scaled(15_000), interval: 300 },
      )
      .toContain('LIVE');
    expect(await session.page.locator('#cluster-instances table').textContent()).toContain('3 / 3');
    expect(await session.page.locator('#cluster-stats').textContent()).toContain('3 available of 3');
    await screenshot(session.page, 'cluster');
  });

  it('terminates the instances after a confirmation', async () => {
    session.page.once('dialog', (dialog) => dialog.dismiss());
    await session.page.getByRole('button', { name: 'Terminate instances' }).click();
    expect(await session.page.locator('#cluster-instances table').textContent()).toContain('LIVE');

    session.page.once('dialog', (dialog) => dialog.accept());
    await session.page.getByRole('button', { name: 'Terminate instances' }).click();
    await expect
      .poll(() => session.page.locator('#toast').textContent(), { timeout: scaled(15_000) })
      .toContain('Terminating 1 instances');
    // The runner drains once set to KILL; the autoscaler then marks it terminated.
    await expect
      .poll(() => session.page.locator('#cluster-instances table').textContent(), { timeout: scaled(15_000) })
      .toMatch(/KILL|TERMINATE/);
    await screenshot(session.page, 'cluster-terminating');
  });

  it('creates a cluster from the form and deletes it', async () => {
    await session.navTo('Clusters');
    const form = session.page.getByRole('form', { name: 'New cluster' });
    await form.getByLabel('Cluster name').fill('from-the-form');
    await form.getByLabel('Memory per runner (MiB)').fill('256');
    await form.getByLabel('Share with (e-mails, comma-separated)').fill('admin@ferrum.local');
    await form.getByLabel('Maximum runners').fill('5');
    await form.getByRole('button', { name: 'Create cluster' }).click();
    await session.page.getByRole('heading', { name: 'from-the-form' }).waitFor();
    const created = await clusterNamed('from-the-form');
    expect(created.memory).toBe(256 * MIB);
    const full = (await session.server.http.get(`/2/clusters/${created.id}`)).body.cluster;
    expect(full.autoscale).toMatchObject({ provider: 'static', runners_max: 5 });
    expect(await session.page.locator('#cluster-config').textContent()).toContain('admin@ferrum.local');

    session.page.once('dialog', (dialog) => dialog.accept());
    await session.page.getByRole('button', { name: 'Delete cluster' }).click();
    await session.page.getByRole('heading', { name: 'Clusters' }).waitFor();
    expect(await clusterNamed('from-the-form')).toBeUndefined();
  });

  it('shows an AWS cluster without any of its secrets, and a form error for a missing one', async () => {
    const secrets = {
      access_key_id: 'AKIADASHBOARDTEST',
      secret_access_key: 'dashboard-secret-key',
      docker_auth: 'dashboard-docker-auth',
    };
    const created = await session.server.http.post('/2/clusters', {
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
    await session.page.goto(`${session.server.url}/#/clusters/${created.body.cluster.id}`);
    await session.page.getByRole('heading', { name: 'cloud' }).waitFor();
    expect(await session.page.locator('#cluster-config').textContent()).toContain('region: eu-west-1');
    const html = await session.page.content();
    for (const secret of Object.values(secrets)) expect(html).not.toContain(secret);

    await session.navTo('Clusters');
    const form = session.page.getByRole('form', { name: 'New cluster' });
    await form.getByLabel('Cluster name').fill('no-keys');
    await form.getByLabel('Instances from').selectOption('aws');
    await form.getByRole('button', { name: 'Create cluster' }).click();
    await expect
      .poll(() => form.getByRole('alert').textContent(), { timeout: scaled(15_000) })
      .toMatch(/access_key_id/);
    expect(await clusterNamed('no-keys')).toBeUndefined();
  });

  it('shows the default cluster', async () => {
    await session.navTo('Clusters');
    await session.page.getByRole('link', { name: 'default cluster' }).click();
    await session.page.getByRole('heading', { name: 'default' }).waitFor();
    expect(await session.page.getByRole('button', { name: 'Delete cluster' }).count()).toBe(0);
  });

  it('sent no request beyond this machine', () => {
    expect(session.outside).toEqual([]);
  });
});
