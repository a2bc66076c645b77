import type { FastifyReply } from 'fastify';
import { fail } from '../../src/core/errors.js';
import { livenessMsOf } from '../../src/worker/clusters/runners/runner-registry.js';
import type { GatewayLease } from '../../src/worker/tasks/running/gateway-leases.js';
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
export function nextTaskRoute(app: ApiInstance, { config, worker, tasks }: RunnerRouteDeps): void {
  const { gateRetryMs } = config.runner;
  app.post('/runner/v1/clusters/:cluster_id/instances/:instance_id/tasks/next', {
    schema: { params: instanceParams, querystring: nextTaskQuery },
    handler: async (request, reply) => {
      const { cluster_id: cluster, instance_id: instanceId } = request.params;
      const query = request.query;
      const heartbeatMs = query.heartbeat_ms ?? config.runner.heartbeatMs;
      if (!(await worker.runners.isAlive(cluster, instanceId))) throw fail('instance_not_registered', instanceId);
      const gone = clientGone(reply);
      const deadline = Date.now() + (query.wait_ms ?? MAX_WAIT_MS);
      for (;;) {
        const remaining = deadline - Date.now();
        const pumped = remaining > 0 ? await tasks.jobs.next(cluster, remaining, gone) : null;
        if (!pumped) return reply.code(204).send();
        const { job, lock } = pumped;
        if (gone.aborted) {
          await job.moveToDelayed(Date.now(), lock).catch(() => {});
          return reply;
        }
        // A token revoked while this poll waited takes nothing: the job goes back for another runner.
        if (!(await stillGranted(request, worker.runnerTokens))) {
          await job.moveToDelayed(Date.now(), lock).catch(() => {});
          throw fail('runner_token_invalid');
        }
        const { project_id: projectId, task_id: taskId } = job.data;
        const taken = await worker.runnerTasks.take(projectId, taskId, instanceId, livenessMsOf(heartbeatMs), app.log);
        if (taken === 'gated') {
          // Every slot of its code package is held: back to the queue, not counted as an attempt.
          await job.moveToDelayed(Date.now() + gateRetryMs, lock);
          continue;
        }
        if (!taken) {
          await job.moveToCompleted(null, lock, false).catch(() => {});
          continue;
        }
        const lease: GatewayLease = {
          project_id: projectId,
          task_id: taskId,
          code_id: taken.code_id,
          job_id: job.id ?? taskId,
          lock,
          taken_at: Date.now(),
        };
        await worker.gatewayLeases.put(cluster, instanceId, lease, tasks.leaseTtl(heartbeatMs));
        if (gone.aborted) {
          await tasks.giveBack(cluster, instanceId, lease);
          return reply;
        }
        return { task: taken };
      }
    },
  });
}
