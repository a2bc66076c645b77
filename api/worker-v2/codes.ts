import type { ApiPlugin } from '../type-provider.js';
import { notFound } from '../../src/core/errors.js';
import { projectOf } from '../auth-hooks.js';
import { requireProjectOrOwnTask } from './task-token-auth.js';
import { quotasOf } from '../../src/auth/quotas.js';
import { readUpload } from './code-upload.js';
import { codeParams, pagingQuery, projectParams } from './params.js';
import { statsQuery, statsRangeOf, statsSchema } from './stats-query.js';
import { codeSchema, codeView, msgSchema, revisionSchema, revisionView } from './views.js';
import type { WorkerRouteOptions } from './route-options.js';

/** A file name safe inside a quoted Content-Disposition parameter. */
function downloadName(name: string, rev: number): string {
  return `${name.replace(/[^A-Za-z0-9._-]/g, '_')}_${rev}.zip`;
}

export const codeRoutes: ApiPlugin<WorkerRouteOptions> = async (app, { ctx, worker }) => {
  app.addHook('onRequest', requireProjectOrOwnTask(ctx));
  const { codes } = worker;

  app.get('/2/projects/:project_id/codes', {
    schema: {
      params: projectParams,
      querystring: pagingQuery,
      response: { 200: { type: 'object', properties: { codes: { type: 'array', items: codeSchema } } } },
    },
    handler: async (request) => {
      const { project_id: projectId } = request.params;
      const { page, per_page: perPage } = request.query;
      const list = await codes.list(projectId, { page, perPage });
      const paused = await worker.pause.pausedAmong(
        projectId,
        list.map((code) => code.id),
      );
      return { codes: list.map((code) => codeView(code, paused.has(code.id))) };
    },
  });

  app.post('/2/projects/:project_id/codes', {
    // Exempt from the 64 KB limit of ordinary requests: the zip has a limit of its own.
    bodyLimit: ctx.config.worker.maxCodeBytes + 1024 * 1024,
    schema: {
      params: projectParams,
      response: { 200: { type: 'object', properties: { id: { type: 'string' }, msg: { type: 'string' } } } },
    },
    handler: async (request) => {
      const { project_id: projectId } = request.params;
      const upload = await readUpload(
        request,
        ctx.config.worker.maxCodeBytes,
        ctx.config.worker,
        ctx.config.worker.zip,
      );
      const quota = quotasOf(projectOf(request), ctx.config.quotas).stored_bytes;
      const code = await codes.upload(projectId, upload, quota);
      return { id: code.id, msg: 'Upload successful.' };
    },
  });

  app.get('/2/projects/:project_id/codes/:code_id', {
    schema: { params: codeParams, response: { 200: codeSchema } },
    handler: async (request) => {
      const { project_id: projectId, code_id: codeId } = request.params;
      const code = await codes.get(projectId, codeId);
      const paused = await worker.pause.pausedAmong(projectId, [code.id]);
      return codeView(code, paused.has(code.id));
    },
  });

  app.get('/2/projects/:project_id/codes/:code_id/stats', {
    schema: { params: codeParams, querystring: statsQuery, response: { 200: statsSchema } },
    handler: async (request) => {
      const { project_id: projectId, code_id: codeId } = request.params;
      const range = statsRangeOf(request.query, Date.now());
      await codes.get(projectId, codeId);
      return worker.stats.countByStatus(projectId, codeId, range);
    },
  });

  const codeAction = (action: string, run: (projectId: string, codeId: string) => Promise<string>) =>
    app.post(`/2/projects/:project_id/codes/:code_id/${action}`, {
      // Pausing, resuming and cancelling the package's tasks is not a task token's to do.
      config: { taskToken: 'refused' },
      schema: { params: codeParams, response: { 200: msgSchema } },
      handler: async (request) => {
        const { project_id: projectId, code_id: codeId } = request.params;
        await codes.get(projectId, codeId);
        return { msg: await run(projectId, codeId) };
      },
    });
  codeAction('pause_task_queue', async (projectId, codeId) => {
    await worker.pause.pause(projectId, codeId);
    return 'Paused';
  });
  codeAction('resume_task_queue', async (projectId, codeId) => {
    await worker.pause.resume(projectId, codeId);
    return 'Resumed';
  });
  codeAction(
    'cancel_all',
    async (projectId, codeId) => `Cancelled ${await worker.tasks.cancelAll(projectId, codeId)} tasks`,
  );

  app.delete('/2/projects/:project_id/codes/:code_id', {
    schema: { params: codeParams, response: { 200: msgSchema } },
    handler: async (request) => {
      const { project_id: projectId, code_id: codeId } = request.params;
      await codes.delete(projectId, codeId);
      return { msg: 'Deleted' };
    },
  });

  app.get('/2/projects/:project_id/codes/:code_id/revisions', {
    schema: {
      params: codeParams,
      querystring: pagingQuery,
      response: { 200: { type: 'object', properties: { revisions: { type: 'array', items: revisionSchema } } } },
    },
    handler: async (request) => {
      const { project_id: projectId, code_id: codeId } = request.params;
      const { page, per_page: perPage } = request.query;
      return { revisions: (await codes.revisions(projectId, codeId, { page, perPage })).map(revisionView) };
    },
  });

  app.get('/2/projects/:project_id/codes/:code_id/download', {
    schema: {
      params: codeParams,
      querystring: { type: 'object', properties: { revision: { type: 'integer', minimum: 1 } } },
    },
    handler: async (request, reply) => {
      const { project_id: projectId, code_id: codeId } = request.params;
      const { revision: rev } = request.query;
      const revision = await codes.revision(projectId, codeId, rev);
      const zip = await codes.zip(revision);
      if (revision.archive_pruned)
        throw notFound(
          `Revision ${revision.rev} of code package ${revision.name}: its zip was deleted, only the newest revisions keep theirs (FERRUM_WORKER_REVISIONS_KEPT)`,
        );
      if (!zip)
        throw notFound(`Revision ${revision.rev} of code package ${revision.name} is an image package: it has no zip`);
      return reply
        .header('Content-Type', 'application/zip')
        .header('Content-Disposition', `attachment; filename="${downloadName(revision.name, revision.rev)}"`)
        .send(zip);
    },
  });
};
