import fastifyStatic from '@fastify/static';
import type { ApiPlugin } from './type-provider.js';
import { fileURLToPath } from 'node:url';
import type { PluginOptions } from './context.js';
import { dashboardSession } from './dashboard-session.js';

// From api/ in the source tree and from dist/api/ once built, the web folder is one level up
// (scripts/copy-assets.mjs copies it into dist/).
const WEB_ROOT = fileURLToPath(new URL('../web/', import.meta.url));
// The API client the dashboard shares with the CLI (plain ES modules; tsc copies them into dist/).
// web/ imports it as `../client/…`, so from /ui/ the browser asks for it at /client/.
const CLIENT_ROOT = fileURLToPath(new URL('../client/', import.meta.url));

/**
 * The dashboard's pages run only its own files: no inline script or style, no plugin, no other
 * origin to load from, post to or be framed by. Whatever a tenant's data holds, it is text.
 */
const DASHBOARD_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** The dashboard: index at `/`, assets under `/ui/`, the shared API client under `/client/`. API routes keep every other path. */
export const dashboard: ApiPlugin<PluginOptions> = async (app, { ctx }) => {
  app.addHook('onSend', async (_request, reply, payload) => {
    reply.header('content-security-policy', DASHBOARD_CSP);
    reply.header('x-content-type-options', 'nosniff');
    return payload;
  });
  await app.register(dashboardSession, { ctx });
  await app.register(fastifyStatic, { root: WEB_ROOT, prefix: '/ui/', index: false, maxAge: 60_000 });
  await app.register(fastifyStatic, {
    root: CLIENT_ROOT,
    prefix: '/client/',
    index: false,
    maxAge: 60_000,
    decorateReply: false,
    allowedPath: (pathName) => pathName.endsWith('.js'),
  });
  app.get('/', (_request, reply) => reply.sendFile('index.html'));
};
