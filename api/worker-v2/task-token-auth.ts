import type { FastifyReply, FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import { forbidden } from '../../src/core/errors.js';
import type { TaskTokens } from '../../src/worker/tasks/task-tokens.js';
import { presentedToken, requireProject } from '../auth-hooks.js';
import type { AppContext } from '../../controller/app-context.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route also accepts the task token of the task in its path. */
    ownTask?: boolean;
  }
}

/**
 * Hook: a user's token with access to the project, or a running task's own token on a route
 * marked `ownTask` for that very task (and project). Any other use of a task token: 403.
 */
export function requireProjectOrOwnTask(ctx: AppContext, tokens: TaskTokens): onRequestAsyncHookHandler {
  const asUser = requireProject(ctx);
  return async function (this: unknown, request: FastifyRequest, reply: FastifyReply) {
    const token = presentedToken(request);
    const grant = token ? await tokens.find(token) : null;
    if (!grant) return asUser.call(this as never, request, reply);
    const { project_id: projectId, task_id: taskId } = request.params as { project_id?: string; task_id?: string };
    const ownTask =
      request.routeOptions.config.ownTask === true && projectId === grant.project_id && taskId === grant.task_id;
    if (!ownTask) throw forbidden('A task token is valid only for its own task');
  };
}
