import type { ApiInstance, ApiPlugin, WithParams } from '../type-provider.js';
import type { CodeService } from '../../src/worker/codes/code-service.js';
import type { PluginOptions } from '../context.js';
import { projectOf } from '../auth-hooks.js';
import { requireProjectOrOwnTask } from './task-token-auth.js';
import { quotasOf } from '../../src/auth/quotas.js';
import { readUploadForm } from './code-upload.js';
import { codeParams, pagingQuery, projectParams } from './params.js';
import { statsQuery, statsRangeOf, statsSchema } from './stats-query.js';
import { codeSchema, codeView, msgSchema, revisionSchema, revisionView } from './views.js';

/** The code routes' options: every route is one CodeService call. */
export interface CodeRouteOptions extends PluginOptions {
  codes: CodeService;
}

type CodeRequest = WithParams<{ project_id: string; code_id: string }>;

/** A file name safe inside a quoted Content-Disposition parameter. */
function downloadName(name: string, rev: number): string {
  return `${name.replace(/[^A-Za-z0-9._-]/g, '_')}_${rev}.zip`;
}

export const codeRoutes: ApiPlugin<CodeRouteOptions> = async (app, options) => {
  app.addHook('onRequest', requireProjectOrOwnTask(options.ctx));
  codePackageRoutes(app, options);
  codeQueueRoutes(app, options.codes);
  revisionRoutes(app, options.codes);
};

/** Listing, uploading, reading and deleting code packages. */
function codePackageRoutes(app: ApiInstance, { ctx, codes }: CodeRouteOptions): void {
  app.get('/2/projects/:project_id/codes', {
    schema: {
      params: projectParams,
      querystring: pagingQuery,
      response: { 200: { type: 'object', properties: { codes: { type: 'array', items: codeSchema } } } },
    },
    handler: async (request) => {
      const { page, per_page: perPage } = request.query;
      const list = await codes.list(request.params.project_id, { page, perPage });
      return { codes: list.map(({ code, paused }) => codeView(code, paused)) };
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
      const form = await readUploadForm(request, ctx.config.worker.maxCodeBytes);
      const quota = quotasOf(projectOf(request), ctx.config.quotas).stored_bytes;
      const code = await codes.upload(request.params.project_id, form, quota);
      return { id: code.id, msg: 'Upload successful.' };
    },
  });

  app.get('/2/projects/:project_id/codes/:code_id', {
    schema: { params: codeParams, response: { 200: codeSchema } },
    handler: async (request) => {
      const { code, paused } = await codes.get(request.params.project_id, request.params.code_id);
      return codeView(code, paused);
    },
  });

  app.delete('/2/projects/:project_id/codes/:code_id', {
    schema: { params: codeParams, response: { 200: msgSchema } },
    handler: async (request) => {
      await codes.delete(request.params.project_id, request.params.code_id);
      return { msg: 'Deleted' };
    },
  });
}

/** A package's tasks: their stats, and pausing, resuming and cancelling them. */
function codeQueueRoutes(app: ApiInstance, codes: CodeService): void {
  app.get('/2/projects/:project_id/codes/:code_id/stats', {
    schema: { params: codeParams, querystring: statsQuery, response: { 200: statsSchema } },
    handler: async (request) => {
      const range = statsRangeOf(request.query, Date.now());
      return codes.stats(request.params.project_id, request.params.code_id, range);
    },
  });

  const codeAction = (action: string, run: (request: CodeRequest) => Promise<string>) =>
    app.post(`/2/projects/:project_id/codes/:code_id/${action}`, {
      // Pausing, resuming and cancelling the package's tasks is not a task token's to do.
      config: { taskToken: 'refused' },
      schema: { params: codeParams, response: { 200: msgSchema } },
      handler: async (request) => ({ msg: await run(request) }),
    });
  codeAction('pause_task_queue', async ({ params }) => {
    await codes.pause(params.project_id, params.code_id);
    return 'Paused';
  });
  codeAction('resume_task_queue', async ({ params }) => {
    await codes.resume(params.project_id, params.code_id);
    return 'Resumed';
  });
  codeAction(
    'cancel_all',
    async ({ params }) => `Cancelled ${await codes.cancelAll(params.project_id, params.code_id)} tasks`,
  );
}

/** A package's revisions and their zips. */
function revisionRoutes(app: ApiInstance, codes: CodeService): void {
  app.get('/2/projects/:project_id/codes/:code_id/revisions', {
    schema: {
      params: codeParams,
      querystring: pagingQuery,
      response: { 200: { type: 'object', properties: { revisions: { type: 'array', items: revisionSchema } } } },
    },
    handler: async (request) => {
      const { page, per_page: perPage } = request.query;
      const revisions = await codes.revisions(request.params.project_id, request.params.code_id, { page, perPage });
      return { revisions: revisions.map(revisionView) };
    },
  });

  app.get('/2/projects/:project_id/codes/:code_id/download', {
    schema: {
      params: codeParams,
      querystring: { type: 'object', properties: { revision: { type: 'integer', minimum: 1 } } },
    },
    handler: async (request, reply) => {
      const { project_id: projectId, code_id: codeId } = request.params;
      const { revision, zip } = await codes.download(projectId, codeId, request.query.revision);
      return reply
        .header('Content-Type', 'application/zip')
        .header('Content-Disposition', `attachment; filename="${downloadName(revision.name, revision.rev)}"`)
        .send(zip);
    },
  });
}
