import { describe, expect, it } from 'vitest';
import { useTenant, useVictim, expectHealthyAndIntact, newTenant } from '../../helpers/adversarial/tenant-data.js';
import { readThrough, useTestServer } from '../../helpers/test-file.js';
import { ClusterScaler } from '../../../controller/loops/cluster-scaler.js';
import type { InstanceProvider } from '../../../controller/providers/instance-provider.js';
import type { WorkerServices } from '../../../src/worker/services.js';

// A second tenant tries to make the installation start containers or machines for it.
const server = useTestServer({
  FERRUM_CLUSTER_TENANT_MAX_RUNNERS: '4',
  FERRUM_CLUSTER_TENANT_MAX_CLUSTERS: '3',
  FERRUM_CLUSTER_MAX_RUNNER_TOKENS: '2',
  FERRUM_AUTOSCALER_MAX_LAUNCH_PER_CLUSTER: '2',
  FERRUM_AUTOSCALER_MAX_LAUNCH_PER_PASS: '3',
  FERRUM_AUTOSCALER_INTERVAL_MS: '0',
});
const victim = useVictim(server);
const hostile = useTenant(server, 'hostile');
const worker = readThrough<WorkerServices>(() => server.running.ctx.worker);

describe('a tenant asking for operator powers', () => {
  it.each(['docker', 'aws'])('cannot choose the %s provider (403 naming the rule)', async (provider) => {
    const response = await hostile.http.post('/2/clusters', { name: 'mine', autoscale: { provider } });
    expect(response.status).toBe(403);
    expect(response.body.msg).toContain(`autoscale.provider ${provider} is for operators only`);
  });

  it('cannot switch an existing cluster to docker', async () => {
    const created = await hostile.http.post('/2/clusters', { name: 'plain' });
    expect(created.status).toBe(200);
    const response = await hostile.http.put(`/2/clusters/${created.body.cluster.id}`, {
      autoscale: { provider: 'docker' },
    });
    expect(response.status).toBe(403);
  });

  it.each(['runners_min', 'runners_max'])('cannot ask for more %s than the cap (400)', async (field) => {
    const autoscale = { runners_max: 100, [field]: 5 };
    if (field === 'runners_max') autoscale.runners_max = 5;
    const response = await hostile.http.post('/2/clusters', { name: 'big', autoscale });
    expect(response.status).toBe(400);
    expect(response.body.msg).toMatch(/autoscale\.runners_m(in|ax) must be at most 4 for tenant clusters/);
  });

  it('owns at most the capped number of clusters, with at most the capped number of runner tokens each (403 naming the setting)', async () => {
    const greedy = await newTenant(server, 'greedy');
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const created = await greedy.http.post('/2/clusters', { name: `mine-${i}` });
      expect(created.status, created.text).toBe(200);
      ids.push(created.body.cluster.id);
    }
    const refused = await greedy.http.post('/2/clusters', { name: 'one-more' });
    expect(refused.status).toBe(403);
    expect(refused.body.msg).toContain('FERRUM_CLUSTER_TENANT_MAX_CLUSTERS');
    expect((await server.http.post('/2/clusters', { name: 'admins-are-not-capped' })).status).toBe(200);

    const tokens = `/2/clusters/${ids[0]}/tokens`;
    const first = await greedy.http.post(tokens);
    expect(first.status, first.text).toBe(200);
    expect((await greedy.http.post(tokens)).status).toBe(200);
    const over = await greedy.http.post(tokens);
    expect(over.status).toBe(403);
    expect(over.body.msg).toContain('FERRUM_CLUSTER_MAX_RUNNER_TOKENS');
    expect((await greedy.http.delete(`${tokens}/${first.body.token.id}`)).status).toBe(200);
    expect((await greedy.http.post(tokens)).status).toBe(200);

    // Deleting a cluster makes room for another.
    expect((await greedy.http.delete(`/2/clusters/${ids[1]}`)).status).toBe(200);
    expect((await greedy.http.post('/2/clusters', { name: 'replacement' })).status).toBe(200);
  });

  it('gets a capped static cluster', async () => {
    const response = await hostile.http.post('/2/clusters', { name: 'small', autoscale: { runners_max: 4 } });
    expect(response.status).toBe(200);
    expect(response.body.cluster.autoscale).toMatchObject({ provider: 'static', runners_max: 4 });
  });

  it('leaves the admin free to choose docker and big sizes', async () => {
    const response = await server.http.post('/2/clusters', {
      name: 'operator',
      autoscale: { provider: 'docker', runners_max: 50 },
    });
    expect(response.status).toBe(200);
  });

  it('leaves the server healthy and the victim intact', async () => {
    await expectHealthyAndIntact(server, victim);
  });
});

/** A provider that records launches: what to launch is the scaler's concern, not the engine's. */
function recordingProvider(launched: string[]): InstanceProvider {
  return {
    kind: 'docker',
    launch: async ({ instanceId }) => {
      launched.push(instanceId);
      return { providerId: `recorded-${instanceId}`, instanceId, state: 'running' as const, launchedAt: Date.now() };
    },
    terminate: async () => undefined,
    list: async () => [],
  };
}

function scalerOf(): ClusterScaler {
  const ownerIsAdmin = async (userId: string) =>
    (await server.running.ctx.identity.users.getUser(userId))?.admin === true;
  return new ClusterScaler(
    server.config,
    server.running.ctx.redisUrl,
    worker,
    { info: () => undefined, warn: () => undefined } as never,
    ownerIsAdmin,
  );
}

describe('the autoscaler', () => {
  it('launches at most the per-cluster and per-pass numbers of instances, whatever the demand', async () => {
    const launched: string[] = [];
    const provider = recordingProvider(launched);
    const ids: string[] = [];
    for (const name of ['a', 'b']) {
      const created = await server.http.post('/2/clusters', {
        name,
        autoscale: { provider: 'docker', runners_min: 40, runners_max: 50 },
      });
      ids.push(created.body.cluster.id);
    }
    const scaler = scalerOf();
    const budget = { launches: server.config.autoscaler.maxLaunchPerPass };
    for (const id of ids) await scaler.pass((await worker.clusters.find(id))!, provider, budget);
    // runners_min 40 wants 40 instances each: 2 for the first (per cluster), 1 for the second (per pass).
    expect(launched).toHaveLength(3);
    const counts = await Promise.all(ids.map(async (id) => (await worker.instances.list(id)).length));
    expect(counts).toEqual([2, 1]);
  });

  it("launches nothing for a tenant's cluster whose provider tenants may no longer use (made under looser settings)", async () => {
    const created = await hostile.http.post('/2/clusters', {
      name: 'older',
      autoscale: { runners_min: 2, runners_max: 4 },
    });
    expect(created.status).toBe(200);
    const id = created.body.cluster.id as string;
    // As if saved while the operator let tenants use docker: the rule is checked again at every pass.
    await worker.clusters.update(id, ({ cluster, secrets }) => ({
      cluster: { ...cluster, autoscale: { ...cluster.autoscale, provider: 'docker' } },
      secrets,
    }));
    const launched: string[] = [];
    const scaler = scalerOf();
    for (let pass = 0; pass < 3; pass++)
      await scaler.pass((await worker.clusters.find(id))!, recordingProvider(launched));
    expect(launched).toEqual([]);
    expect(await worker.instances.list(id)).toEqual([]);
  });
});
