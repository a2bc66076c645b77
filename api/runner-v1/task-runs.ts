import { fail } from '../../src/core/errors.js';
import type { ApiInstance } from '../type-provider.js';
import type { RunnerRouteDeps } from './deps.js';
import { finishBody, logQuery, progressBody, startBody, TASK_PATH, taskParams } from './schemas.js';

/** The largest log chunk a runner may send in one request. */
const LOG_CHUNK_LIMIT_BYTES = 8 * 1024 * 1024;

/** A held task's run as its runner reports it: image pull, start, log chunks, progress, end, release. */
export function taskRunRoutes(app: ApiInstance, deps: RunnerRouteDeps): void {
  taskLifecycleRoutes(app, deps);
  taskReportRoutes(app, deps);
}

/** The run's changes of status: start, pulling, finish, release. */
function taskLifecycleRoutes(app: ApiInstance, { config, worker, tasks }: RunnerRouteDeps): void {
  app.post(`${TASK_PATH}/start`, {
    schema: { params: taskParams, body: startBody },
    handler: async (request) => {
      const { cluster_id: cluster, instance_id: instanceId } = request.params;
      const { lease, task } = await tasks.held(request.params);
      const { hostname } = request.body ?? {};
      const token = await worker.runnerTasks.start(task, instanceId, hostname ?? '');
      if (token === null) throw fail('task_cannot_start', task.id, task.status);
      const ttl = tasks.leaseTtl(config.runner.lockMs);
      await worker.gatewayLeases.put(cluster, instanceId, { ...lease, task_token: token }, ttl);
      return { task_token: token };
    },
  });

  app.post(`${TASK_PATH}/pulling`, {
    schema: { params: taskParams },
    handler: async (request) => {
      const { task } = await tasks.held(request.params);
      const marked = await worker.statuses.markPulling(task.project_id, task.id, request.params.instance_id);
      if (!marked.changed) throw fail('task_not_preparing', task.id, marked.previous || 'gone');
      return { msg: 'Pulling' };
    },
  });

  app.post(`${TASK_PATH}/finish`, {
    schema: { params: taskParams, body: finishBody },
    handler: async (request) => {
      const { instance_id: instanceId } = request.params;
      const { task } = await tasks.held(request.params);
      const body = request.body;
      const outcome = { status: body.status, ...(body.msg ? { msg: body.msg } : {}) };
      return { ended: await worker.runnerTasks.finish(task, instanceId, body.from, outcome, app.log) };
    },
  });

  app.post(`${TASK_PATH}/release`, {
    schema: { params: taskParams },
    handler: async (request) => {
      const { cluster_id: cluster, instance_id: instanceId } = request.params;
      const { lease, task } = await tasks.held(request.params);
      await tasks.release(cluster, instanceId, lease, task);
      return { msg: 'Released' };
    },
  });
}

/** What a running task reports: log chunks (in order) and progress. */
function taskReportRoutes(app: ApiInstance, { config, worker, tasks }: RunnerRouteDeps): void {
  app.post(`${TASK_PATH}/log`, {
    bodyLimit: LOG_CHUNK_LIMIT_BYTES,
    schema: { params: taskParams, querystring: logQuery },
    handler: async (request) => {
      const { instance_id: instanceId } = request.params;
      const { task } = await tasks.held(request.params);
      if (!Buffer.isBuffer(request.body)) throw fail('log_chunk_not_octet_stream');
      const { seq, max_bytes: runnerMax } = request.query;
      // A runner may keep logs smaller than the installation does, never larger.
      const maxBytes = Math.min(config.worker.maxLogBytes, runnerMax ?? Infinity);
      const append = { seq, chunk: request.body, runnerId: instanceId };
      const result = await worker.statuses.appendLogInOrder(task.project_id, task.id, append, maxBytes);
      return { log_size: result.size, duplicate: result.duplicate };
    },
  });

  app.post(`${TASK_PATH}/progress`, {
    schema: { params: taskParams, body: progressBody },
    handler: async (request) => {
      const { task } = await tasks.held(request.params);
      await worker.statuses.progress(task.project_id, task.id, request.body);
      return { msg: 'Progress set' };
    },
  });
}
