import { advertisedFeatures, FEATURES_HEADER } from '../../src/core/features/feature-registry.js';
import { livenessMsOf, type RunnerInstance } from '../../src/worker/clusters/runners/runner-registry.js';
import type { ApiInstance } from '../type-provider.js';
import type { RunnerRouteDeps } from './deps.js';
import { grantOf } from './runner-auth.js';
import { heartbeatBody, instanceParams } from './schemas.js';

/** The runner's token, its instance's heartbeat (which keeps its tasks' leases and job locks), deregistering. */
export function instanceRoutes(app: ApiInstance, { config, worker, tasks, features }: RunnerRouteDeps): void {
  const { lockMs } = config.runner;

  app.get('/runner/v1/token', async (request) => {
    const grant = grantOf(request);
    return { cluster_id: grant.cluster, token_id: grant.token_id, instance_id: grant.instance_id ?? null };
  });

  app.post('/runner/v1/clusters/:cluster_id/instances/:instance_id/heartbeat', {
    schema: { params: instanceParams, body: heartbeatBody },
    handler: async (request) => {
      const { cluster_id: cluster, instance_id: instanceId } = request.params;
      const body = request.body;
      const { heartbeat_ms: heartbeatMs, tasks: running } = request.body;
      const now = Date.now();
      const instance: RunnerInstance = {
        instance_id: instanceId,
        cluster,
        hostname: body.hostname ?? '',
        slots: body.slots,
        busy: body.busy,
        version: body.version ?? '',
        created_at: request.body.created_at ?? now,
        updated_at: now,
        expires_at: 0,
      };
      const liveness = livenessMsOf(heartbeatMs);
      await worker.runners.heartbeat(instance, liveness);
      // Its storage flags, which it cannot write itself (none named: a release before flags).
      await features.advertise({
        id: `${cluster}/${instanceId}`,
        kind: 'gateway-runner',
        version: instance.version,
        features: advertisedFeatures(request.headers[FEATURES_HEADER]),
        expires_at: now + liveness,
      });
      const leases = await worker.gatewayLeases.all(cluster, instanceId);
      await worker.gatewayLeases.touch(cluster, instanceId, tasks.leaseTtl(heartbeatMs));
      const kept = leases.filter((lease) => running.includes(lease.task_id));
      await worker.gate.renew(
        kept.map((lease) => ({ projectId: lease.project_id, codeId: lease.code_id, taskId: lease.task_id })),
        liveness,
      );
      const lock = Math.max(lockMs, liveness);
      await Promise.all(kept.map((lease) => tasks.jobs.extendLock(cluster, lease, lock).catch(() => {})));
      // A task taken for this runner whose answer it never got (its long-poll dropped) is given back.
      for (const lease of leases) {
        if (!running.includes(lease.task_id) && now - lease.taken_at > lock)
          await tasks.giveBack(cluster, instanceId, lease);
      }
      const cancelled: string[] = [];
      for (const lease of kept) {
        const task = await worker.taskStore.find(lease.project_id, lease.task_id);
        if (!task || !['preparing', 'running'].includes(task.status) || task.runner !== instanceId)
          cancelled.push(lease.task_id);
      }
      const type = await worker.instances.typeOf(cluster, instanceId);
      return { retire: type === 'KILL' || type === 'TERMINATE', cancelled };
    },
  });

  app.delete('/runner/v1/clusters/:cluster_id/instances/:instance_id', {
    schema: { params: instanceParams },
    handler: async (request) => {
      const { cluster_id: cluster, instance_id: instanceId } = request.params;
      await worker.runners.deregister(cluster, instanceId);
      await features.withdraw(`${cluster}/${instanceId}`);
      return { msg: 'Deregistered' };
    },
  });

  app.get('/runner/v1/clusters/:cluster_id/instances/:instance_id/alive', {
    schema: { params: instanceParams },
    handler: async (request) => {
      const { cluster_id: cluster, instance_id: instanceId } = request.params;
      return { alive: await worker.runners.isAlive(cluster, instanceId) };
    },
  });
}
