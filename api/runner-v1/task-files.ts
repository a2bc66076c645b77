import { fail } from '../../src/core/errors.js';
import { ownEntry } from '../../src/core/own-entry.js';
import type { Task } from '../../src/worker/types.js';
import type { WorkerServices } from '../../src/worker/services.js';
import type { ApiInstance } from '../type-provider.js';
import type { RunnerRouteDeps } from './deps.js';
import { registryAuthQuery, TASK_PATH, taskParams } from './schemas.js';

/** The code revision a task runs; 404 once it is gone. */
async function revisionOf(worker: WorkerServices, task: Task) {
  const revision = await worker.codes.revisionById(task.project_id, task.code_id, task.code_history_id);
  if (!revision) throw fail('task_revision_gone', task.code_name, task.code_rev);
  return revision;
}

/** What a held task needs to run: its code revision, its code package's zip, its image's registry credentials. */
export function taskFileRoutes(app: ApiInstance, { config, worker, tasks }: RunnerRouteDeps): void {
  app.get(`${TASK_PATH}/revision`, {
    schema: { params: taskParams },
    handler: async (request) => {
      const { task } = await tasks.held(request.params);
      return { revision: await revisionOf(worker, task) };
    },
  });

  app.get(`${TASK_PATH}/code`, {
    schema: { params: taskParams },
    handler: async (request, reply) => {
      const { task } = await tasks.held(request.params);
      const zip = await worker.codes.zip(await revisionOf(worker, task));
      if (!zip) return reply.code(204).send();
      return reply.type('application/zip').send(zip);
    },
  });

  app.get(`${TASK_PATH}/registry-auth`, {
    schema: { params: taskParams, querystring: registryAuthQuery },
    handler: async (request) => {
      const { task } = await tasks.held(request.params);
      const { image } = request.query;
      // Only the credentials of the image this task runs: the code's own image, or (a stack's
      // image, which the runner's own configuration names) the one this installation names.
      const revision = await revisionOf(worker, task);
      if (revision.image && revision.image !== image) throw fail('task_image_other', task.id, revision.image, image);
      const stackImage = revision.stack ? ownEntry(config.worker.stacks, revision.stack) : undefined;
      if (!revision.image && stackImage !== image) return { auth: null };
      return { auth: (await worker.credentials.forImage(task.project_id, image)) ?? null };
    },
  });
}
