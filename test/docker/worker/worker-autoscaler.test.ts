import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VERSION } from '../../../src/core/version.js';
import { INSTANCE_LABELS } from '../../../controller/providers/docker-provider.js';
import type { Runner } from '../../../runner/runner.js';
import { eventually } from '../../helpers/eventually.js';
import { buildFerrumImage, checkoutImage, docker } from '../../helpers/image.js';
import { createCluster, startRunner } from '../../helpers/worker.js';
import { workerTestFile } from '../../helpers/worker-test-file.js';
import { scaled } from '../../helpers/pace.js';

// The autoscaler against the real Docker engine: instances are runner containers of the Ferrum
// image built from this tree (a tag of its own), on the host network, against a private Redis.

const IMAGE = checkoutImage('ferrum-clusters');
// Built before the server starts (hooks run in order), which names it for its instances.
beforeAll(() => buildFerrumImage(IMAGE), scaled(600_000));
const { server, worker } = workerTestFile({
  // Runner containers share two loaded cores with everything else: a missed heartbeat must not look like a dead instance.
  FERRUM_RUNNER_HEARTBEAT_MS: '1000',
  FERRUM_AUTOSCALER_INTERVAL_MS: '300',
  FERRUM_AUTOSCALER_EWMA_ALPHA: '0.5',
  FERRUM_AUTOSCALER_COOLDOWN_MS: '1500',
  FERRUM_AUTOSCALER_DOCKER_IMAGE: IMAGE,
  FERRUM_AUTOSCALER_TERMINATED_RETENTION_MS: '600000',
  FERRUM_METRICS_SAMPLE_MS: '300',
});
const runners: Runner[] = [];

/** eventually(), and on a time-out the cluster's stats in the error, to see what the autoscaler saw. */
async function until<T>(
  what: string,
  check: () => Promise<T | undefined | false>,
  timeoutMs: number,
  clusterId?: string,
): Promise<T> {
  try {
    return await eventually(check, timeoutMs, what);
  } catch (error) {
    if (!clusterId) throw error;
    throw new Error(`${(error as Error).message}: ${JSON.stringify(await stats(clusterId))}`);
  }
}

async function stats(clusterId: string): Promise<any> {
  const response = await server.http.get(`/2/clusters/${clusterId}/stats`);
  expect(response.status).toBe(200);
  return response.body.cluster;
}

const ofType = (cluster: any, type: string) => cluster.instances.filter((instance: any) => instance.type === type);

async function containersOf(clusterId: string): Promise<string[]> {
  const ids = await docker('ps', '-aq', '--filter', `label=${INSTANCE_LABELS.cluster}=${clusterId}`);
  return ids ? ids.split('\n') : [];
}

beforeAll(async () => {
  await worker.upload({ name: 'shell', image: 'ferrum-test/busybox', command: 'sh -c "$(cat $PAYLOAD_FILE)"' });
});

afterAll(async () => {
  for (const runner of runners) await runner.stop();
  for (const id of (await docker('ps', '-aq', '--filter', `label=${INSTANCE_LABELS.owner}`))
    .split('\n')
    .filter(Boolean)) {
    const labels = await docker('inspect', '-f', `{{index .Config.Labels "${INSTANCE_LABELS.cluster}"}}`, id);
    if (clustersMade.includes(labels)) await docker('rm', '-f', id).catch(() => undefined);
  }
});

const clustersMade: string[] = [];
async function cluster(name: string, autoscale: Record<string, unknown>): Promise<string> {
  const id = await createCluster(server.http, name, { autoscale });
  clustersMade.push(id);
  return id;
}

describe('the docker provider', () => {
  it(
    'scales a cluster from 0 to 2 instances under load, runs the tasks on them, and back to 0 when idle',
    async () => {
      const clusterId = await cluster('elastic', {
        provider: 'docker',
        runners_min: 0,
        runners_max: 2,
        runners_per_instance: 1,
      });
      expect(await stats(clusterId)).toMatchObject({ instances: [], runners_total: 0 });
      const tasks: string[] = [];
      for (let i = 0; i < 4; i++)
        tasks.push(await worker.queue('shell', `sleep 2; echo done ${i}`, { cluster: clusterId }));
      let most = 0;
      const live = await until(
        'two LIVE instances',
        async () => {
          const now = await stats(clusterId);
          most = Math.max(most, ofType(now, 'ADD').length + ofType(now, 'LIVE').length);
          return ofType(now, 'LIVE').length === 2 && now;
        },
        120_000,
        clusterId,
      );
      expect(live.runners_total).toBe(2);
      expect(live.ewma).toBeGreaterThan(0);
      expect(await containersOf(clusterId)).toHaveLength(2);
      // Instances get the API URL and a runner token of their own: no Redis URL, password or key.
      const instanceTokens = new Set<string>();
      for (const id of await containersOf(clusterId)) {
        const env = JSON.parse(await docker('inspect', '-f', '{{json .Config.Env}}', id)) as string[];
        expect(env.map((entry) => entry.split('=')[0])).toEqual(
          expect.arrayContaining(['FERRUM_API_URL', 'FERRUM_RUNNER_TOKEN']),
        );
        expect(env.join('\n')).not.toMatch(/REDIS|redis:\/\/|ENCRYPTION_KEY|KEY_PREFIX/);
        instanceTokens.add(env.find((entry) => entry.startsWith('FERRUM_RUNNER_TOKEN='))!);
      }
      expect(instanceTokens.size).toBe(2);
      expect((await server.http.get(`/2/clusters/${clusterId}/tokens`)).body.tokens).toHaveLength(2);
      for (let i = 0; i < 4; i++) {
        const task = await worker.waitFor(tasks[i]!, ['complete', 'error', 'timeout', 'cancelled'], 120_000);
        expect(task.status).toBe('complete');
        expect(await worker.log(tasks[i]!)).toBe(`done ${i}\n`);
      }
      const idle = await until(
        'every instance terminated',
        async () => {
          const now = await stats(clusterId);
          most = Math.max(most, ofType(now, 'ADD').length + ofType(now, 'LIVE').length);
          return now.instances.length >= 2 && ofType(now, 'TERMINATE').length === now.instances.length && now;
        },
        120_000,
        clusterId,
      );
      expect(most).toBe(2);
      expect(idle).toMatchObject({ queued: 0, runners_total: 0, runners_available: 0, ewma: 0 });
      expect(await containersOf(clusterId)).toEqual([]);
      // A terminated instance's token is revoked.
      expect((await server.http.get(`/2/clusters/${clusterId}/tokens`)).body.tokens).toEqual([]);
      // Sampled by the leader's metrics sampler, which may not have run since the last termination.
      await eventually(
        async () => /ferrum_cluster_instances\{type="TERMINATE"\} [1-9]/.test((await server.http.get('/metrics')).text),
        10_000,
        'ferrum_cluster_instances counts the terminated instances',
      );
    },
    scaled(300_000),
  );

  it(
    'never loses a running task of a KILL instance: it finishes, then the instance terminates',
    async () => {
      const clusterId = await cluster('killed', {
        provider: 'docker',
        runners_min: 1,
        runners_max: 1,
        runners_per_instance: 1,
      });
      const [instance] = ofType(
        await until(
          'a LIVE instance',
          async () => ofType(await stats(clusterId), 'LIVE').length === 1 && stats(clusterId),
          120_000,
        ),
        'LIVE',
      );
      // From here on nothing is launched: only the KILL → TERMINATE steps go on.
      expect((await server.http.put(`/2/clusters/${clusterId}`, { autoscale: { disable: true } })).status).toBe(200);
      const long = await worker.queue('shell', 'sleep 4; echo finished', { cluster: clusterId });
      await worker.waitFor(long, ['running'], 60_000);
      const terminated = await server.http.post(`/2/clusters/${clusterId}/terminate`);
      expect(terminated.body).toEqual({ msg: 'Terminating 1 instances' });
      expect(ofType(await stats(clusterId), 'KILL')).toMatchObject([{ instance_id: instance.instance_id }]);
      const later = await worker.queue('shell', 'echo too late', { cluster: clusterId });

      const done = await worker.waitFor(long, ['complete', 'error', 'timeout', 'cancelled'], 60_000);
      expect(done.status).toBe('complete');
      expect(await worker.log(long)).toBe('finished\n');
      await until(
        'the instance terminated',
        async () => ofType(await stats(clusterId), 'TERMINATE').length === 1,
        60_000,
      );
      expect(await containersOf(clusterId)).toEqual([]);
      expect((await worker.task(later)).status).toBe('queued');
      expect((await stats(clusterId)).queued).toBe(1);
    },
    scaled(300_000),
  );

  it('launches nothing for a cluster whose autoscale is disabled', async () => {
    const clusterId = await cluster('disabled', {
      provider: 'docker',
      runners_max: 2,
      runners_per_instance: 1,
      disable: true,
    });
    await worker.queue('shell', 'echo waits', { cluster: clusterId });
    // Two autoscaler rounds that saw the task (its queue-depth average moved twice): either
    // would have launched an instance.
    const first = await until('an autoscaler round', async () => (await stats(clusterId)).ewma || false, 10_000);
    const now = await until(
      'a second autoscaler round',
      async () => {
        const seen = await stats(clusterId);
        return seen.ewma !== first && seen;
      },
      10_000,
    );
    expect(now).toMatchObject({ instances: [], queued: 1 });
    expect(now.ewma).toBeGreaterThan(0);
  });
});

describe('a static cluster', () => {
  it(
    'shows self-registered runners as LIVE instances; terminate drains them and they stop',
    async () => {
      const clusterId = await cluster('fixed', { provider: 'static' });
      const runner = await startRunner(server, { FERRUM_RUNNER_CLUSTER: clusterId, FERRUM_RUNNER_SLOTS: '3' });
      runners.push(runner);
      const live = await until(
        'the runner as an instance',
        async () => (await stats(clusterId)).instances.length === 1 && stats(clusterId),
        10_000,
      );
      expect(live).toMatchObject({
        runners_total: 3,
        runners_available: 3,
        instances: [{ instance_id: runner.id, type: 'LIVE', runners_total: 3, runners_available: 3, version: VERSION }],
      });
      expect(Object.keys(live.instances[0]).sort()).toEqual([
        'created_at',
        'instance_id',
        'runners_available',
        'runners_total',
        'type',
        'updated_at',
        'version',
      ]);
      const task = await worker.queue('shell', 'sleep 1; echo static', { cluster: clusterId });
      await worker.waitFor(task, ['running'], 20_000);
      expect((await server.http.post(`/2/clusters/${clusterId}/terminate`)).body).toEqual({
        msg: 'Terminating 1 instances',
      });
      expect(await runner.whenStopped()).toBe(true);
      expect((await worker.task(task)).status).toBe('complete');
      await until(
        'the instance terminated',
        async () => ofType(await stats(clusterId), 'TERMINATE').length === 1,
        10_000,
      );
      expect((await stats(clusterId)).runners_total).toBe(0);
    },
    scaled(60_000),
  );
});
