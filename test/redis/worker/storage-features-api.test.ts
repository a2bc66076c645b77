import { beforeAll, describe, expect, it } from 'vitest';
import { FEATURES_HEADER, KNOWN_FEATURES } from '../../../src/core/features/feature-registry.js';
import { newTenant, type Tenant } from '../../helpers/adversarial/tenant-data.js';
import { useTestServer } from '../../helpers/test-file.js';
import {
  createCluster,
  createRunnerToken,
  FAST_WORKER_ENV,
  runnerApiCall,
  type RunnerCallOptions,
  WorkerClient,
} from '../../helpers/worker.js';
import { scaled } from '../../helpers/pace.js';

// The storage flags' admin API, with gateway runners of this release and of release f89fce9
// (whose requests are shaped here exactly as its runner sends them: no features header).
const server = useTestServer(FAST_WORKER_ENV);
let tenant: Tenant;
let cluster: string;
let runnerToken: string;

beforeAll(async () => {
  tenant = await newTenant(server, 'tenant');
  cluster = await createCluster(server.http, 'flags');
  runnerToken = (await createRunnerToken(server, cluster)).token;
}, scaled(60_000));

/** A runner API call as a gateway runner makes it (Bearer runner token; extra headers). */
const runnerCall = (method: string, path: string, options?: RunnerCallOptions) =>
  runnerApiCall(server, runnerToken)(method, path, options);

/** The heartbeat body release f89fce9's gateway runner sends. */
const oldHeartbeat = (tasks: string[] = []) => ({
  hostname: 'old-host',
  version: '0.1.0',
  slots: 1,
  busy: tasks.length,
  created_at: Date.now(),
  heartbeat_ms: 5000,
  tasks,
});

describe('the storage feature flags API', () => {
  it('a fresh installation has every known flag enabled; the listing shows this controller', async () => {
    const listing = await server.http.get('/1/admin/features');
    expect(listing.status).toBe(200);
    expect(listing.body.features.map((feature: { name: string }) => feature.name)).toEqual([...KNOWN_FEATURES]);
    expect(listing.body.features.every((feature: { enabled: boolean }) => feature.enabled)).toBe(true);
    expect(listing.body.processes).toContainEqual(
      expect.objectContaining({ kind: 'controller', features: [...KNOWN_FEATURES] }),
    );
  });

  it('is for admin tokens only: 403 for a tenant, 401 without a token', async () => {
    for (const [method, path] of [
      ['GET', '/1/admin/features'],
      ['POST', '/1/admin/features/plain_messages/enable'],
    ] as const) {
      const refused = await tenant.http.request(method, path);
      expect(refused.status).toBe(403);
      expect(refused.body.msg).toBe('Only an admin token may see or enable storage feature flags');
      expect((await server.http.withToken(null).request(method, path)).status).toBe(401);
    }
  });

  it('an unknown flag is 404 naming the known ones', async () => {
    const unknown = await server.http.post('/1/admin/features/warp_drive/enable');
    expect(unknown.status).toBe(404);
    expect(unknown.body.msg).toBe(`Unknown storage feature flag warp_drive; known: ${KNOWN_FEATURES.join(', ')}`);
  });

  it('enabling waits for an f89fce9 gateway runner to go; this release’s runners advertise through their heartbeat', async () => {
    // As on a store an earlier release wrote: the flag is off.
    const redis = server.openRedis();
    await redis.srem(server.running.ctx.features.store.keys.enabled(), 'plain_messages');
    redis.disconnect();
    await server.running.ctx.features.refresh();
    expect(server.running.ctx.features.enabled('plain_messages')).toBe(false);

    const base = (instance: string) => `/runner/v1/clusters/${cluster}/instances/${instance}`;
    expect((await runnerCall('POST', `${base('old-runner')}/heartbeat`, { body: oldHeartbeat() })).status).toBe(200);
    const headers = { [FEATURES_HEADER]: KNOWN_FEATURES.join(',') };
    const body = { ...oldHeartbeat(), version: '0.2.0' };
    expect((await runnerCall('POST', `${base('new-runner')}/heartbeat`, { body, headers })).status).toBe(200);

    const listing = await server.http.get('/1/admin/features');
    expect(listing.body.features[0].unsupported_by).toEqual([
      { id: `${cluster}/old-runner`, kind: 'gateway-runner', version: '0.1.0' },
    ]);
    const refused = await server.http.post('/1/admin/features/plain_messages/enable');
    expect(refused.status).toBe(409);
    expect(refused.body.msg).toBe(
      `Storage feature flag plain_messages cannot be enabled: live processes do not support it (upgrade or stop them first): ${cluster}/old-runner (gateway-runner, version 0.1.0)`,
    );
    // Posts meanwhile keep an expiry entry each (what f89fce9 reads).
    const queue = `/3/projects/${server.projectId}/queues/flagged/messages`;
    expect((await server.http.post(queue, { messages: [{ body: 'before' }] })).status).toBe(201);
    const expiryKey = server.running.ctx.mq.keys.queue({ projectId: server.projectId, name: 'flagged' })[4]!;
    const observer = server.openRedis();
    expect(await observer.zcard(expiryKey)).toBe(1);

    expect((await runnerCall('DELETE', base('old-runner'))).status).toBe(200);
    const enabled = await server.http.post('/1/admin/features/plain_messages/enable');
    expect(enabled.status).toBe(200);
    expect([...enabled.body.enabled].sort()).toEqual([...KNOWN_FEATURES].sort());
    expect(server.running.ctx.features.enabled('plain_messages')).toBe(true);
    // A queue takes the plain layout once its ready set is empty (see src/mq/lua/includes/plain-layout.lua).
    expect((await server.http.post(queue, { messages: [{ body: 'after' }] })).status).toBe(201);
    expect(await observer.zcard(expiryKey)).toBe(2);
    const other = server.running.ctx.mq.keys.queue({ projectId: server.projectId, name: 'fresh' })[4]!;
    const fresh = `/3/projects/${server.projectId}/queues/fresh/messages`;
    expect((await server.http.post(fresh, { messages: [{ body: 'plain' }] })).status).toBe(201);
    expect(await observer.zcard(other)).toBe(0);
    observer.disconnect();
  });

  it('f89fce9’s log chunks, numbered on past one it gave up on, still reach the log', async () => {
    const worker = new WorkerClient(server.http, server.projectId);
    await worker.upload({ name: 'shell', image: 'ferrum-test/busybox', command: 'sh' });
    const base = `/runner/v1/clusters/${cluster}/instances/old-logger`;
    expect((await runnerCall('POST', `${base}/heartbeat`, { body: oldHeartbeat() })).status).toBe(200);
    const taskId = await worker.queue('shell', 'echo', { cluster });
    const next = await runnerCall('POST', `${base}/tasks/next?wait_ms=10000&heartbeat_ms=5000`);
    expect(next.body.task.id).toBe(taskId);
    expect((await runnerCall('POST', `${base}/tasks/${taskId}/start`, { body: { hostname: 'old-host' } })).status).toBe(
      200,
    );
    const chunk = (seq: number, text: string) =>
      runnerCall('POST', `${base}/tasks/${taskId}/log?seq=${seq}&max_bytes=1048576`, { raw: Buffer.from(text) });
    for (let seq = 1; seq <= 21; seq++) expect((await chunk(seq, `line ${seq}\n`)).status).toBe(200);
    // Chunk 22 was given up while the controller restarted; 23 to 50 come to this one.
    for (let seq = 23; seq <= 50; seq++) expect((await chunk(seq, `line ${seq}\n`)).status).toBe(200);
    const log = (await worker.log(taskId)).split('\n');
    expect(log.filter((line) => line.startsWith('line '))).toHaveLength(49);
    expect(log).toContain('[log: 1 chunk(s) of output never reached the installation]');
    const finished = await runnerCall('POST', `${base}/tasks/${taskId}/finish`, {
      body: { from: ['running'], status: 'complete' },
    });
    expect(finished.body).toEqual({ ended: true });
    expect((await worker.task(taskId)).status).toBe('complete');
  });
});
