import type { FastifyReply } from 'fastify';
import type { ApiInstance } from '../type-provider.js';
import type { RunnerRouteDeps } from './deps.js';
import { stillGranted } from './runner-auth.js';
import { instanceParams, MAX_WAIT_MS, nextTaskQuery } from './schemas.js';

/** Aborts when the client goes away before its answer is sent (a runner draining drops its long-poll). */
function clientGone(reply: FastifyReply): AbortSignal {
  const controller = new AbortController();
  reply.raw.once('close', () => {
    if (!reply.raw.writableEnded) controller.abort();
  });
  return controller.signal;
}

/** The runner's long-poll for its next task: a BullMQ job taken for it, its task taken and leased to it. */
export function nextTaskRoute(app: ApiInstance, { config, worker, session }: RunnerRouteDeps): void {
  app.post('/runner/v1/clusters/:cluster_id/instances/:instance_id/tasks/next', {
    schema: { params: instanceParams, querystring: nextTaskQuery },
    handler: async (request, reply) => {
      const { cluster_id: cluster, instance_id: instanceId } = request.params;
      const { heartbeat_ms: heartbeatMs, wait_ms: waitMs } = request.query;
      const gone = clientGone(reply);
      const ask = {
        cluster,
        instanceId,
        heartbeatMs: heartbeatMs ?? config.runner.heartbeatMs,
        waitMs: waitMs ?? MAX_WAIT_MS,
        gone,
        stillGranted: () => stillGranted(request, worker.runnerTokens),
      };
      const task = await session.next(ask, app.log);
      if (task) return { task };
      return gone.aborted ? reply : reply.code(204).send();
    },
  });
}
