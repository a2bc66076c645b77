import { FEATURES_HEADER } from '../../src/core/features/feature-registry.js';
import type { ApiInstance } from '../type-provider.js';
import type { RunnerRouteDeps } from './deps.js';
import { grantOf } from './runner-auth.js';
import { heartbeatBody, instanceParams } from './schemas.js';

/** The runner's token, its instance's heartbeat (which keeps its tasks' leases and job locks), deregistering. */
export function instanceRoutes(app: ApiInstance, { worker, session }: RunnerRouteDeps): void {
  app.get('/runner/v1/token', async (request) => {
    const grant = grantOf(request);
    return { cluster_id: grant.cluster, token_id: grant.token_id, instance_id: grant.instance_id ?? null };
  });

  app.post('/runner/v1/clusters/:cluster_id/instances/:instance_id/heartbeat', {
    schema: { params: instanceParams, body: heartbeatBody },
    handler: async (request) => {
      const { cluster_id: cluster, instance_id: instanceId } = request.params;
      const body = request.body;
      return session.heartbeat({
        cluster,
        instanceId,
        hostname: body.hostname ?? '',
        version: body.version ?? '',
        slots: body.slots,
        busy: body.busy,
        heartbeatMs: body.heartbeat_ms,
        createdAt: body.created_at ?? Date.now(),
        running: body.tasks,
        featuresHeader: request.headers[FEATURES_HEADER],
      });
    },
  });

  app.delete('/runner/v1/clusters/:cluster_id/instances/:instance_id', {
    schema: { params: instanceParams },
    handler: async (request) => {
      const { cluster_id: cluster, instance_id: instanceId } = request.params;
      await session.deregister({ cluster, instanceId });
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
