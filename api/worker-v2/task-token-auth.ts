import type { FastifyReply, FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import { forbidden } from '../../src/core/errors.js';
import { requireProject } from '../auth-hooks.js';
import { pathParameter } from '../request-fields.js';
import type { AppContext } from '../../controller/app-context.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** A task token may use the route only for the task it was given to (progress). */
    ownTaskOnly?: boolean;
  }
}

/**
 * Hook: a token with access to the project (a user's, or a running task's own token for its
 * project); on routes marked `ownTaskOnly`, a task token only for its own task.
 */
export function requireProjectOrOwnTask(ctx: AppContext): onRequestAsyncHookHandler {
  const asProject = requireProject(ctx);
  return async function (this: unknown, request: FastifyRequest, reply: FastifyReply) {
    await asProject.call(this as never, request, reply);
    const task = request.principal?.task;
    if (!task || request.routeOptions.config.ownTaskOnly !== true) return;
    const taskId = pathParameter(request, 'task_id');
    if (taskId !== task.taskId) throw forbidden('A task token reports progress only for its own task');
  };
}
