import { beforeAll, describe, expect, it } from 'vitest';
import { useTenant } from '../../helpers/adversarial/tenant-data.js';
import { useHardenedServer, expectHealthy } from '../../helpers/adversarial/hardened-server.js';
import { MqClient } from '../../helpers/mq.js';
import { eventually } from '../../helpers/eventually.js';
import { createCluster } from '../../helpers/worker.js';
import { scaled } from '../../helpers/pace.js';

// A stranger scrapes /metrics (it needs no token): it must not learn which projects, queues or
// clusters exist, unless the operator turned per-tenant labels on.

const server = useHardenedServer({ FERRUM_METRICS_SAMPLE_MS: '200', FERRUM_METRICS_TOP_QUEUES: '5' });
const tenant = useTenant(server, 'metrics');
let clusterId: string;
const queue = 'acme-payroll-secret-queue';

beforeAll(async () => {
  const mq = new MqClient(tenant.http, tenant.projectId);
  await mq.postBodies(queue, 'a', 'b', 'c');
  clusterId = await createCluster(tenant.http, 'acme-private-cluster');
  const task = await tenant.http.post(`/2/projects/${tenant.projectId}/tasks`, {
    tasks: [{ code_name: 'nothing', payload: '', cluster: clusterId, delay: 600 }],
  });
  // The task is refused (no such code) or queued: either way the cluster is known to the sampler.
  expect([200, 404]).toContain(task.status);
}, scaled(60_000));

describe('/metrics without per-tenant labels (the default)', () => {
  it('names no project, queue or tenant cluster, yet the sampled gauges are there', async () => {
    const text = await eventually(async () => {
      const scraped = (await server.http.get('/metrics', { token: null })).text;
      return scraped.includes('ferrum_worker_tasks{') ? scraped : undefined;
    }, 15_000);
    expect(text).not.toContain(tenant.projectId);
    expect(text).not.toContain(queue);
    expect(text).not.toContain(clusterId);
    expect(text).not.toContain(server.projectId);
    await expectHealthy(server);
  });
});
