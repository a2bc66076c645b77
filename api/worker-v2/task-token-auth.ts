import type { FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import { fail } from '../../src/core/errors.js';
import { authorizeRequest } from '../auth-hooks.js';
import { pathParameter } from '../request-fields.js';
import type { AppContext } from '../context.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** How a task token may use the route: only for the task it was given to (progress), or not at all. */
    taskToken?: 'own task only' | 'refused';
  }
}

/**
 * Hook: a token with access to the project (a user's, or a running task's own token for its
 * project); a task token not on routes marked `taskToken: 'refused'`, and only for its own
 * task on those marked `'own task only'`.
 */
export function requireProjectOrOwnTask(ctx: AppContext): onRequestAsyncHookHandler {
  return async function (request: FastifyRequest) {
    await authorizeRequest(ctx, request, { allowTaskTokens: true });
    const task = request.principal?.task;
    const rule = request.routeOptions.config.taskToken;
    if (!task || rule === undefined) return;
    if (rule === 'refused') throw fail('task_token_out_of_scope');
    const taskId = pathParameter(request, 'task_id');
    if (taskId !== task.taskId) throw fail('task_token_other_task');
  };
}
