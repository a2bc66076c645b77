import type { FastifyReply } from 'fastify';
import type { ApiPlugin, WithParams } from '../type-provider.js';
import { conflict, forbidden, notFound, unauthorized } from '../../src/core/errors.js';
import { livenessMsOf, type RunnerInstance } from '../../src/worker/clusters/runner-registry.js';
import type { GatewayLease } from '../../src/worker/tasks/gateway-leases.js';
import { TASK_STATUSES, type Task } from '../../src/worker/types.js';
import type { PluginOptions } from '../context.js';
import { grantOf, requireRunnerToken, stillGranted } from './runner-auth.js';

/** The longest a runner's long-poll for its next task is held open. */
const MAX_WAIT_MS = 30_000;

const idPattern = '^[A-Za-z0-9_.-]{1,100}$';
const instanceParams = {
  type: 'object',
  required: ['cluster_id', 'instance_id'],
  properties: {
    cluster_id: { type: 'string', pattern: idPattern },
    instance_id: { type: 'string', pattern: idPattern },
  },
} as const;
const taskParams = {
  ...instanceParams,
  required: [...instanceParams.required, 'task_id'] as const,
  properties: { ...instanceParams.properties, task_id: { type: 'string', pattern: idPattern } },
} as const;
const heartbeatBody = {
  type: 'object',
  required: ['slots', 'busy', 'heartbeat_ms', 'tasks'],
  additionalProperties: false,
  properties: {
    hostname: { type: 'string', maxLength: 255 },
    version: { type: 'string', maxLength: 50 },
    slots: { type: 'integer', minimum: 1, maximum: 1000 },
    busy: { type: 'integer', minimum: 0, maximum: 1000 },
    heartbeat_ms: { type: 'integer', minimum: 100, maximum: 600_000 },
    created_at: { type: 'integer', minimum: 0 },
    tasks: { type: 'array', maxItems: 1000, items: { type: 'string', pattern: idPattern } },
  },
} as const;
const finishBody = {
  type: 'object',
  required: ['from', 'status'],
  additionalProperties: false,
  properties: {
    from: { type: 'array', minItems: 1, items: { enum: ['preparing', 'running'] } },
    status: { enum: TASK_STATUSES.filter((status) => !['queued', 'preparing', 'running'].includes(status)) },
    msg: { type: 'string', maxLength: 10_000 },
  },
} as const;
const progressBody = {
  type: 'object',
  additionalProperties: false,
  properties: { percent: { type: 'integer', minimum: 0, maximum: 100 }, msg: { type: 'string', maxLength: 10_000 } },
} as const;

/** Aborts when the client goes away before its answer is sent (a runner draining drops its long-poll). */
function clientGone(reply: FastifyReply): AbortSignal {
  const controller = new AbortController();
  reply.raw.once('close', () => {
    if (!reply.raw.writableEnded) controller.abort();
  });
  return controller.signal;
}

/**
 * The runner API: what a gateway runner (one that cannot reach Redis) needs, authorized by a
 * cluster runner token. The controller takes BullMQ jobs for the runner and keeps their locks
 * while the runner heartbeats; every task change runs the scripts direct runners run.
 */
export const runnerV1Api: ApiPlugin<PluginOptions> = async (app, { ctx }) => {
  const { worker } = ctx;
  const jobs = ctx.gatewayJobs;
  app.decorateRequest('runnerGrant', null);
  app.addHook('onRequest', requireRunnerToken(worker.runnerTokens));
  app.addContentTypeParser(
    'application/octet-stream',
    { parseAs: 'buffer', bodyLimit: 8 * 1024 * 1024 },
    (_request, body, done) => done(null, body),
  );
  const { lockMs, gateRetryMs } = ctx.config.runner;
  /** Leases and slots of a runner last as long as its liveness, and never less than a job lock. */
  const leaseTtl = (heartbeatMs: number) => Math.max(lockMs, livenessMsOf(heartbeatMs)) * 2;

  /** The task the calling runner holds; 403 for any other. */
  async function held(
    request: WithParams<{ cluster_id: string; instance_id: string; task_id: string }>,
  ): Promise<{ lease: GatewayLease; task: Task }> {
    const { cluster_id: cluster, instance_id: instance, task_id: taskId } = request.params;
    const lease = await worker.gatewayLeases.get(cluster, instance, taskId);
    if (!lease) throw forbidden(`This runner does not hold task ${taskId}`);
    const task = await worker.taskStore.find(lease.project_id, taskId);
    if (!task) throw notFound(`Task ${taskId} not found`);
    return { lease, task };
  }

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
      const leases = await worker.gatewayLeases.all(cluster, instanceId);
      await worker.gatewayLeases.touch(cluster, instanceId, leaseTtl(heartbeatMs));
      const kept = leases.filter((lease) => running.includes(lease.task_id));
      await worker.gate.renew(
        kept.map((lease) => ({ projectId: lease.project_id, codeId: lease.code_id, taskId: lease.task_id })),
        liveness,
      );
      const lock = Math.max(lockMs, liveness);
      await Promise.all(kept.map((lease) => jobs.extendLock(cluster, lease, lock).catch(() => {})));
      // A task taken for this runner whose answer it never got (its long-poll dropped) is given back.
      for (const lease of leases) {
        if (!running.includes(lease.task_id) && now - lease.taken_at > lock) await giveBack(cluster, instanceId, lease);
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

  /**
   * A task taken for a runner that never started it goes back to the queue for another runner,
   * no retry used; one no longer preparing (ended, or gone) has its token and slot freed and its
   * job leaves the queue.
   */
  async function giveBack(cluster: string, instanceId: string, lease: GatewayLease): Promise<void> {
    const task = { project_id: lease.project_id, code_id: lease.code_id, id: lease.task_id };
    if (await worker.runnerTasks.giveBack(task, instanceId)) {
      await jobs.giveBack(cluster, lease);
    } else {
      await worker.runnerTasks.release(task, lease.task_token ?? null);
      await jobs.complete(cluster, lease);
    }
    await worker.gatewayLeases.drop(cluster, instanceId, lease.task_id);
  }

  app.delete('/runner/v1/clusters/:cluster_id/instances/:instance_id', {
    schema: { params: instanceParams },
    handler: async (request) => {
      const { cluster_id: cluster, instance_id: instanceId } = request.params;
      await worker.runners.deregister(cluster, instanceId);
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

  app.post('/runner/v1/clusters/:cluster_id/instances/:instance_id/tasks/next', {
    schema: {
      params: instanceParams,
      querystring: {
        type: 'object',
        properties: {
          wait_ms: { type: 'integer', minimum: 0, maximum: MAX_WAIT_MS },
          heartbeat_ms: { type: 'integer', minimum: 100, maximum: 600_000 },
        },
      },
    },
    handler: async (request, reply) => {
      const { cluster_id: cluster, instance_id: instanceId } = request.params;
      const query = request.query;
      const heartbeatMs = query.heartbeat_ms ?? ctx.config.runner.heartbeatMs;
      if (!(await worker.runners.isAlive(cluster, instanceId)))
        throw conflict(`Instance ${instanceId} is not registered: heartbeat first`);
      const gone = clientGone(reply);
      const deadline = Date.now() + (query.wait_ms ?? MAX_WAIT_MS);
      for (;;) {
        const remaining = deadline - Date.now();
        const pumped = remaining > 0 ? await jobs.next(cluster, remaining, gone) : null;
        if (!pumped) return reply.code(204).send();
        const { job, lock } = pumped;
        if (gone.aborted) {
          await job.moveToDelayed(Date.now(), lock).catch(() => {});
          return reply;
        }
        // A token revoked while this poll waited takes nothing: the job goes back for another runner.
        if (!(await stillGranted(request, worker.runnerTokens))) {
          await job.moveToDelayed(Date.now(), lock).catch(() => {});
          throw unauthorized('Invalid or revoked runner token');
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
        await worker.gatewayLeases.put(cluster, instanceId, lease, leaseTtl(heartbeatMs));
        if (gone.aborted) {
          await giveBack(cluster, instanceId, lease);
          return reply;
        }
        return { task: taken };
      }
    },
  });

  const taskPath = '/runner/v1/clusters/:cluster_id/instances/:instance_id/tasks/:task_id';

  app.get(`${taskPath}/revision`, {
    schema: { params: taskParams },
    handler: async (request) => {
      const { task } = await held(request);
      const revision = await worker.codes.revisionById(task.project_id, task.code_id, task.code_history_id);
      if (!revision) throw notFound(`Code package ${task.code_name} revision ${task.code_rev} no longer exists`);
      return { revision };
    },
  });

  app.get(`${taskPath}/code`, {
    schema: { params: taskParams },
    handler: async (request, reply) => {
      const { task } = await held(request);
      const revision = await worker.codes.revisionById(task.project_id, task.code_id, task.code_history_id);
      if (!revision) throw notFound(`Code package ${task.code_name} revision ${task.code_rev} no longer exists`);
      const zip = await worker.codes.zip(revision);
      if (!zip) return reply.code(204).send();
      return reply.type('application/zip').send(zip);
    },
  });

  app.get(`${taskPath}/registry-auth`, {
    schema: {
      params: taskParams,
      querystring: {
        type: 'object',
        required: ['image'],
        properties: { image: { type: 'string', minLength: 1, maxLength: 1000 } },
      },
    },
    handler: async (request) => {
      const { task } = await held(request);
      const { image } = request.query;
      // Only the credentials of the image this task runs: the code's own image, or (a stack's
      // image, which the runner's own configuration names) the one this installation names.
      const revision = await worker.codes.revisionById(task.project_id, task.code_id, task.code_history_id);
      if (!revision) throw notFound(`Code package ${task.code_name} revision ${task.code_rev} no longer exists`);
      if (revision.image && revision.image !== image)
        throw forbidden(`Task ${task.id} runs image ${revision.image}, not ${image}`);
      const stackImage = revision.stack ? ctx.config.worker.stacks[revision.stack] : undefined;
      if (!revision.image && stackImage !== image) return { auth: null };
      return { auth: (await worker.credentials.forImage(task.project_id, image)) ?? null };
    },
  });

  app.post(`${taskPath}/start`, {
    schema: {
      params: taskParams,
      body: {
        type: 'object',
        additionalProperties: false,
        properties: { hostname: { type: 'string', maxLength: 255 } },
      },
    },
    handler: async (request) => {
      const { cluster_id: cluster, instance_id: instanceId } = request.params;
      const { lease, task } = await held(request);
      const { hostname } = request.body ?? {};
      const token = await worker.runnerTasks.start(task, instanceId, hostname ?? '');
      if (token === null) throw conflict(`Task ${task.id} cannot start: it is ${task.status}`);
      await worker.gatewayLeases.put(cluster, instanceId, { ...lease, task_token: token }, leaseTtl(lockMs));
      return { task_token: token };
    },
  });

  app.post(`${taskPath}/log`, {
    schema: {
      params: taskParams,
      querystring: {
        type: 'object',
        required: ['seq'],
        properties: { seq: { type: 'integer', minimum: 1 }, max_bytes: { type: 'integer', minimum: 0 } },
      },
    },
    handler: async (request) => {
      const { instance_id: instanceId } = request.params;
      const { task } = await held(request);
      if (!Buffer.isBuffer(request.body)) throw conflict('A log chunk is sent as application/octet-stream');
      const { seq, max_bytes: runnerMax } = request.query;
      // A runner may keep logs smaller than the installation does, never larger.
      const maxBytes = Math.min(ctx.config.worker.maxLogBytes, runnerMax ?? Infinity);
      const append = { seq, chunk: request.body, runnerId: instanceId };
      const result = await worker.statuses.appendLogInOrder(task.project_id, task.id, append, maxBytes);
      return { log_size: result.size, duplicate: result.duplicate };
    },
  });

  app.post(`${taskPath}/progress`, {
    schema: { params: taskParams, body: progressBody },
    handler: async (request) => {
      const { task } = await held(request);
      await worker.statuses.progress(task.project_id, task.id, request.body);
      return { msg: 'Progress set' };
    },
  });

  app.post(`${taskPath}/finish`, {
    schema: { params: taskParams, body: finishBody },
    handler: async (request) => {
      const { instance_id: instanceId } = request.params;
      const { task } = await held(request);
      const body = request.body;
      const outcome = { status: body.status, ...(body.msg ? { msg: body.msg } : {}) };
      return { ended: await worker.runnerTasks.finish(task, instanceId, body.from, outcome, app.log) };
    },
  });

  app.post(`${taskPath}/release`, {
    schema: { params: taskParams },
    handler: async (request) => {
      const { cluster_id: cluster, instance_id: instanceId } = request.params;
      const { lease, task } = await held(request);
      await worker.runnerTasks.release(task, lease.task_token ?? null);
      await jobs.complete(cluster, lease);
      await worker.gatewayLeases.drop(cluster, instanceId, task.id);
      return { msg: 'Released' };
    },
  });
};
