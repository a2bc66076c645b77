import { beforeAll, describe, expect, it } from 'vitest';
import { HttpClient, type HttpResponse, type RequestOptions } from '../../helpers/http.js';
import { createUserWithToken } from '../../helpers/identity.js';
import { useTestServer } from '../../helpers/test-file.js';
import { keysMatching } from '../../helpers/redis.js';
import { FAST_WORKER_ENV, WorkerClient } from '../../helpers/worker.js';
import { scaled } from '../../helpers/pace.js';

const SECRETS = ['AKIA-very-secret-key-id', 'wJalr-very-secret-access-key', 'docker-auth-very-secret'];

const awsCluster = {
  name: 'cloud',
  autoscale: {
    runners_min: 1,
    runners_max: 20,
    docker_auth: SECRETS[2],
    docker_email: 'ops@example.com',
    aws: {
      access_key_id: SECRETS[0],
      secret_access_key: SECRETS[1],
      tags: { team: 'a', env: 'prod' },
      subnet_ids: ['subnet-1'],
    },
  },
};

// These users build aws and docker clusters: the operator allows those providers to tenants here.
const server = useTestServer({
  ...FAST_WORKER_ENV,
  FERRUM_CLUSTER_TENANT_PROVIDERS: 'docker,aws',
  FERRUM_CLUSTER_TENANT_MAX_RUNNERS: '100',
});
let alice: Awaited<ReturnType<typeof createUserWithToken>>;
let bob: Awaited<ReturnType<typeof createUserWithToken>>;
let carol: Awaited<ReturnType<typeof createUserWithToken>>;
const responses: string[] = [];

/** Every response of the file is kept to check that no secret ever appears in one. */
class RecordingClient extends HttpClient {
  override async request<T = any>(
    method: string,
    path: string,
    options: RequestOptions = {},
  ): Promise<HttpResponse<T>> {
    const response = await super.request<T>(method, path, options);
    responses.push(response.text);
    return response;
  }
}

async function create(http: HttpClient, body: unknown): Promise<any> {
  const response = await http.post('/2/clusters', body);
  expect(response.status, response.text).toBe(200);
  return response.body.cluster;
}

beforeAll(async () => {
  alice = await createUserWithToken(server.http, 'alice');
  bob = await createUserWithToken(server.http, 'bob');
  carol = await createUserWithToken(server.http, 'carol');
  for (const user of [alice, bob, carol]) user.http = new RecordingClient(server.url, user.token);
}, scaled(60_000));

describe('creating a cluster', () => {
  it('fills in every default and answers the cluster without secrets', async () => {
    const cluster = await create(alice.http, { name: 'plain' });
    expect(cluster).toMatchObject({
      name: 'plain',
      user_id: alice.id,
      memory: 512 * 1024 * 1024,
      disk: 10 * 1024 * 1024 * 1024,
      cpu_share: 1,
      shared_to: [],
      machines: [],
      runners_total: 0,
      runners_available: 0,
      autoscale: { provider: 'static', disable: false, runners_min: 0, runners_max: 10, runners_per_instance: 1 },
    });
    expect(cluster.id).toMatch(/^[0-9a-f]{24}$/);
  });

  it('defaults an aws cluster to us-east-1, c3.xlarge and 14 runners per instance', async () => {
    const cluster = await create(alice.http, awsCluster);
    expect(cluster.autoscale).toMatchObject({
      provider: 'aws',
      runners_per_instance: 14,
      docker_email: 'ops@example.com',
      aws: {
        region: 'us-east-1',
        instance_type: 'c3.xlarge',
        tags: { team: 'a', env: 'prod' },
        subnet_ids: ['subnet-1'],
      },
    });
    expect(cluster.autoscale.aws.access_key_id).toBeUndefined();
    expect(cluster.autoscale.docker_auth).toBeUndefined();
  });

  it.each([
    ['a missing name', {}, 406, 'name is required'],
    ['a name of the wrong type', { name: 5 }, 400, 'name must be a string'],
    ['an empty name', { name: ' ' }, 400, 'name must not be empty'],
    ['memory of the wrong type', { name: 'x', memory: '1GB' }, 400, 'memory must be an integer'],
    ['a disk of zero', { name: 'x', disk: 0 }, 400, 'disk must be at least 1'],
    ['a negative cpu_share', { name: 'x', cpu_share: -1 }, 400, 'cpu_share must be > 0'],
    [
      'an unknown provider',
      { name: 'x', autoscale: { provider: 'gcp' } },
      400,
      'autoscale.provider must be one of: docker, aws, static',
    ],
    [
      'runners_min above runners_max',
      { name: 'x', autoscale: { runners_min: 5, runners_max: 2 } },
      400,
      'autoscale.runners_min (5) must not exceed autoscale.runners_max (2)',
    ],
    [
      'zero runners per instance',
      { name: 'x', autoscale: { runners_per_instance: 0 } },
      400,
      'autoscale.runners_per_instance must be at least 1',
    ],
    [
      'disable of the wrong type',
      { name: 'x', autoscale: { disable: 'yes' } },
      400,
      'autoscale.disable must be boolean',
    ],
    [
      'aws without credentials',
      { name: 'x', autoscale: { docker_auth: 'a', docker_email: 'e', aws: {} } },
      406,
      'autoscale.aws.access_key_id is required',
    ],
    [
      'aws without a secret key',
      { name: 'x', autoscale: { docker_auth: 'a', docker_email: 'e', aws: { access_key_id: 'k' } } },
      406,
      'autoscale.aws.secret_access_key is required',
    ],
    [
      'aws without docker_auth',
      { name: 'x', autoscale: { docker_email: 'e', aws: { access_key_id: 'k', secret_access_key: 's' } } },
      406,
      'autoscale.docker_auth is required',
    ],
    [
      'aws without docker_email',
      { name: 'x', autoscale: { docker_auth: 'a', aws: { access_key_id: 'k', secret_access_key: 's' } } },
      406,
      'autoscale.docker_email is required',
    ],
    [
      'provider aws without aws settings',
      { name: 'x', autoscale: { provider: 'aws' } },
      406,
      'autoscale.aws is required for autoscale.provider aws',
    ],
    [
      'aws settings for the docker provider',
      { name: 'x', autoscale: { provider: 'docker', aws: { region: 'eu-west-1' } } },
      400,
      'autoscale.aws applies only to autoscale.provider aws, not docker',
    ],
    [
      'tags that are not strings',
      { name: 'x', autoscale: { provider: 'aws', aws: { tags: { a: 1 } } } },
      400,
      'autoscale.aws.tags.a must be a string',
    ],
    [
      'subnet_ids not a list',
      { name: 'x', autoscale: { aws: { subnet_ids: 'subnet-1' } } },
      400,
      'autoscale.aws.subnet_ids must be a list',
    ],
    ['an unknown user id in shared_to', { name: 'x', shared_to: ['nobody'] }, 400, 'shared_to: no user "nobody"'],
    ['a body that is not an object', ['x'], 400, 'body must be an object'],
  ])('refuses %s', async (_case, body, status, msg) => {
    const response = await alice.http.post('/2/clusters', body);
    expect(response.status).toBe(status);
    expect(response.body).toEqual({ msg });
  });

  it('refuses a request without a valid token', async () => {
    expect((await server.http.withToken('nope').post('/2/clusters', { name: 'x' })).status).toBe(401);
    expect((await server.http.withToken('').get('/2/clusters')).status).toBe(401);
  });
});

describe('reading, updating and deleting', () => {
  it('lists own and shared clusters as list entries; get adds machines and sharing', async () => {
    const own = await create(carol.http, { name: 'carols', memory: 1024 });
    const shared = await create(bob.http, { name: 'bobs', shared_to: [carol.email] });
    await create(bob.http, { name: 'private' });
    const list = await carol.http.get('/2/clusters');
    expect(list.status).toBe(200);
    expect(list.body.clusters.map((cluster: any) => cluster.id).sort()).toEqual(['default', own.id, shared.id].sort());
    expect(Object.keys(list.body.clusters[0]).sort()).toEqual([
      'cpu_share',
      'disk',
      'disk_space',
      'id',
      'memory',
      'name',
      'user_id',
    ]);
    const got = await carol.http.get(`/2/clusters/${shared.id}`);
    expect(got.status).toBe(200);
    expect(got.body.cluster).toMatchObject({
      id: shared.id,
      user_id: bob.id,
      shared_to: [carol.email.toLowerCase()],
      machines: [],
      runners_total: 0,
      runners_available: 0,
    });
  });

  it("lists a cluster for the users it is shared to as sharing changes, from each user's own index", async () => {
    const cluster = await create(bob.http, { name: 'passed-around', shared_to: [alice.id] });
    const listed = async (user: typeof alice) =>
      ((await user.http.get('/2/clusters')).body.clusters as any[]).some((each) => each.id === cluster.id);
    expect([await listed(alice), await listed(carol)]).toEqual([true, false]);
    expect((await bob.http.put(`/2/clusters/${cluster.id}`, { shared_to: [carol.id] })).status).toBe(200);
    expect([await listed(alice), await listed(carol), await listed(bob)]).toEqual([false, true, true]);
    expect((await bob.http.delete(`/2/clusters/${cluster.id}`)).status).toBe(200);
    expect([await listed(carol), await listed(bob)]).toEqual([false, false]);
  });

  it('indexes clusters an earlier version made (with no user index) once, at start', async () => {
    const cluster = await create(bob.http, { name: 'from-before', shared_to: [carol.id] });
    const { keys } = server.running.ctx.worker;
    const redis = server.openRedis();
    try {
      // As an earlier version left it: no user indexes, no marker.
      await redis.srem(keys.userClusters(bob.id), cluster.id);
      await redis.srem(keys.userClusters(carol.id), cluster.id);
      await redis.del(keys.userClustersIndexed());
      expect(((await carol.http.get('/2/clusters')).body.clusters as any[]).map((each) => each.id)).not.toContain(
        cluster.id,
      );
      await server.running.ctx.worker.clusters.indexEarlierClusters();
      for (const user of [bob, carol])
        expect(((await user.http.get('/2/clusters')).body.clusters as any[]).map((each) => each.id)).toContain(
          cluster.id,
        );
      expect(await redis.exists(keys.userClustersIndexed())).toBe(1);
    } finally {
      redis.disconnect();
    }
  });

  it('merges tags on update, overwriting equal keys, and keeps the secrets', async () => {
    const cluster = await create(alice.http, awsCluster);
    const updated = await alice.http.put(`/2/clusters/${cluster.id}`, {
      name: 'renamed',
      autoscale: { runners_max: 30, aws: { tags: { env: 'staging', owner: 'ops' } } },
    });
    expect(updated.status, updated.text).toBe(200);
    expect(updated.body.cluster).toMatchObject({
      name: 'renamed',
      autoscale: {
        runners_min: 1,
        runners_max: 30,
        aws: { tags: { team: 'a', env: 'staging', owner: 'ops' }, subnet_ids: ['subnet-1'] },
      },
    });
    const again = await alice.http.get(`/2/clusters/${cluster.id}`);
    expect(again.body.cluster.autoscale.aws.tags).toEqual({ team: 'a', env: 'staging', owner: 'ops' });
    expect(again.body.cluster.created_at).toBe(cluster.created_at);
  });

  it('checks an update as a whole', async () => {
    const cluster = await create(alice.http, { name: 'bounded', autoscale: { runners_max: 3 } });
    const response = await alice.http.put(`/2/clusters/${cluster.id}`, { autoscale: { runners_min: 4 } });
    expect(response.status).toBe(400);
    expect(response.body.msg).toBe('autoscale.runners_min (4) must not exceed autoscale.runners_max (3)');
    expect((await alice.http.put(`/2/clusters/${cluster.id}`, { name: '' })).body).toEqual({
      msg: 'name must not be empty',
    });
    expect((await alice.http.put(`/2/clusters/${cluster.id}`, { memory: 'big' })).status).toBe(400);
  });

  it('lets only the owner change or delete; strangers do not see the cluster', async () => {
    const cluster = await create(bob.http, { name: 'guarded', shared_to: [alice.id] });
    expect((await alice.http.put(`/2/clusters/${cluster.id}`, { name: 'mine' })).status).toBe(403);
    expect((await alice.http.delete(`/2/clusters/${cluster.id}`)).status).toBe(403);
    expect((await alice.http.post(`/2/clusters/${cluster.id}/terminate`)).status).toBe(403);
    expect((await carol.http.get(`/2/clusters/${cluster.id}`)).status).toBe(404);
    expect((await carol.http.get(`/2/clusters/${cluster.id}/stats`)).status).toBe(404);
    expect((await carol.http.put(`/2/clusters/${cluster.id}`, { name: 'x' })).status).toBe(404);
    const deleted = await bob.http.delete(`/2/clusters/${cluster.id}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ msg: 'Deleted' });
    const gone = await bob.http.get(`/2/clusters/${cluster.id}`);
    expect(gone.status).toBe(404);
    expect(gone.body.msg).toBe(`Cluster ${cluster.id} not found`);
  });

  it('refuses to delete a cluster that still has instances', async () => {
    const cluster = await create(alice.http, { name: 'busy', autoscale: { provider: 'docker' } });
    const { worker } = server.running.ctx;
    const now = Date.now();
    await worker.instances.add({
      instance_id: 'i-1',
      cluster: cluster.id,
      provider_id: 'c-1',
      type: 'LIVE',
      runners: 1,
      created_at: now,
      updated_at: now,
    });
    const refused = await alice.http.delete(`/2/clusters/${cluster.id}`);
    expect(refused.status).toBe(409);
    expect(refused.body).toEqual({ msg: `Cluster ${cluster.id} still has 1 instances: terminate them first` });
    expect((await alice.http.post(`/2/clusters/${cluster.id}/terminate`)).body).toEqual({
      msg: 'Terminating 1 instances',
    });
    expect((await alice.http.get(`/2/clusters/${cluster.id}`)).body.cluster.machines).toMatchObject([
      { instance_id: 'i-1', type: 'KILL' },
    ]);
    await worker.instances.move(cluster.id, 'i-1', ['KILL'], 'TERMINATE');
    expect((await alice.http.delete(`/2/clusters/${cluster.id}`)).status).toBe(200);
  });

  it("lists a cluster's runners and the tasks each runs, to its owner only", async () => {
    const cluster = await create(bob.http, { name: 'watched', shared_to: [alice.id] });
    const { worker } = server.running.ctx;
    const now = Date.now();
    await worker.runners.heartbeat(
      {
        instance_id: 'runner-a',
        cluster: cluster.id,
        hostname: 'build-host-1',
        slots: 4,
        busy: 1,
        tasks: ['0123456789abcdef01234567'],
        version: '0.1.0',
        created_at: now,
        updated_at: now,
        expires_at: 0,
      },
      60_000,
    );
    const listed = await bob.http.get(`/2/clusters/${cluster.id}/runners`);
    expect(listed.status).toBe(200);
    expect(listed.body.runners).toMatchObject([
      { instance_id: 'runner-a', hostname: 'build-host-1', slots: 4, busy: 1, tasks: ['0123456789abcdef01234567'] },
    ]);
    expect(listed.body.runners[0].updated_at).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect((await alice.http.get(`/2/clusters/${cluster.id}/runners`)).status).toBe(403);
    expect((await carol.http.get(`/2/clusters/${cluster.id}/runners`)).status).toBe(404);
    expect((await alice.http.get('/2/clusters/default/runners')).status).toBe(403);
    expect((await server.http.get('/2/clusters/default/runners')).status).toBe(200);
  });

  it('shows the built-in default cluster but refuses to change it', async () => {
    expect((await alice.http.get('/2/clusters/default')).body.cluster).toMatchObject({
      id: 'default',
      name: 'default',
    });
    expect((await alice.http.put('/2/clusters/default', { name: 'x' })).status).toBe(403);
    expect((await alice.http.delete('/2/clusters/default')).status).toBe(403);
  });

  it('answers stats with real figures in the spec shape', async () => {
    const cluster = await create(alice.http, { name: 'stats' });
    const stats = await alice.http.get(`/2/clusters/${cluster.id}/stats`);
    expect(stats.status).toBe(200);
    expect(stats.body).toEqual({
      cluster: { ewma: 0, instances: [], queued: 0, runners_available: 0, runners_total: 0 },
    });
  });
});

describe('tasks and schedules with a cluster', () => {
  let aliceProject: WorkerClient;
  let clusterId: string;
  let bobsUnshared: string;

  beforeAll(async () => {
    const project = await alice.http.post('/1/projects', { name: 'alice-project' });
    aliceProject = new WorkerClient(alice.http, project.body.id);
    await aliceProject.upload({ name: 'hello', image: 'ferrum-test/busybox' });
    clusterId = (await create(alice.http, { name: 'for-tasks' })).id;
    bobsUnshared = (await create(bob.http, { name: 'not-for-alice' })).id;
  });

  it('queues tasks to the default cluster and to a cluster the owner may use', async () => {
    const taskId = await aliceProject.queue('hello', 'x', { cluster: clusterId });
    expect((await aliceProject.task(taskId)).cluster).toBe(clusterId);
    expect(await aliceProject.queue('hello', 'x', { cluster: 'default' })).toMatch(/^[0-9a-f]{24}$/);
    const stats = await alice.http.get(`/2/clusters/${clusterId}/stats`);
    expect(stats.body.cluster.queued).toBe(1);
  });

  it('queues tasks to a cluster shared to the owner', async () => {
    const shared = await create(bob.http, { name: 'shared-with-alice', shared_to: [alice.id] });
    expect(await aliceProject.queue('hello', 'x', { cluster: shared.id })).toMatch(/^[0-9a-f]{24}$/);
  });

  it.each([
    ['an unknown cluster', 'no-such-cluster'],
    ['a cluster of another user', 'bobs'],
  ])('refuses tasks, webhooks and schedules to %s', async (_case, which) => {
    const cluster = which === 'bobs' ? bobsUnshared : which;
    const msg = `cluster "${cluster}" is neither "default" nor a cluster this project's owner may use`;
    const task = await alice.http.post(aliceProject.path('/tasks'), {
      tasks: [{ code_name: 'hello', payload: 'x', cluster }],
    });
    expect(task.status).toBe(400);
    expect(task.body).toEqual({ msg });
    const webhook = await alice.http.post(aliceProject.path(`/tasks/webhook?code_name=hello&cluster=${cluster}`), {
      any: 1,
    });
    expect(webhook.status).toBe(400);
    expect(webhook.body).toEqual({ msg });
    const schedule = await alice.http.post(aliceProject.path('/schedules'), {
      schedules: [{ code_name: 'hello', payload: 'x', cluster, run_every: 3600 }],
    });
    expect(schedule.status).toBe(400);
    expect(schedule.body).toEqual({ msg });
  });
});

describe('secrets', () => {
  it('are never in a response nor readable in Redis', async () => {
    const cluster = await create(alice.http, awsCluster);
    await alice.http.put(`/2/clusters/${cluster.id}`, {
      autoscale: { aws: { secret_access_key: 'rotated-very-secret' } },
    });
    await alice.http.get(`/2/clusters/${cluster.id}`);
    await alice.http.get(`/2/clusters/${cluster.id}/stats`);
    await alice.http.get('/2/clusters');
    expect(responses.length).toBeGreaterThan(20);
    for (const text of responses)
      for (const secret of [...SECRETS, 'rotated-very-secret']) expect(text).not.toContain(secret);

    const redis = server.openRedis();
    try {
      const keys = await keysMatching(redis, '*clusters*');
      expect(keys.length).toBeGreaterThan(0);
      for (const key of keys) {
        const type = await redis.type(key);
        const raw = JSON.stringify(
          type === 'hash'
            ? await redis.hgetall(key)
            : type === 'set'
              ? await redis.smembers(key)
              : await redis.get(key),
        );
        for (const secret of [...SECRETS, 'rotated-very-secret']) {
          expect(raw).not.toContain(secret);
          expect(raw).not.toContain(Buffer.from(secret).toString('base64'));
        }
      }
    } finally {
      await redis.quit();
    }
  });

  it('are kept and can be read back by the service', async () => {
    const cluster = await create(alice.http, awsCluster);
    await alice.http.put(`/2/clusters/${cluster.id}`, { autoscale: { aws: { secret_access_key: 'rotated' } } });
    const stored = await server.running.ctx.redis.hget(
      `${server.config.keyPrefix}{clusters}:cluster:${cluster.id}`,
      'secrets',
    );
    expect(stored).toBeTruthy();
    const { worker } = server.running.ctx;
    expect((await worker.clusters.get(cluster.id)).secrets).toEqual({
      access_key_id: SECRETS[0],
      secret_access_key: 'rotated',
      docker_auth: SECRETS[2],
    });
  });
});
