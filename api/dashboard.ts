import fastifyStatic from '@fastify/static';
import type { ApiPlugin } from './type-provider.js';
import { fileURLToPath } from 'node:url';
import type { PluginOptions } from './context.js';

// From api/ in the source tree and from dist/api/ once built, the web folder is one level up
// (scripts/copy-assets.mjs copies it into dist/).
const WEB_ROOT = fileURLToPath(new URL('../web/', import.meta.url));

/** The dashboard: index at `/`, assets under `/ui/`. API routes keep every other path. */
export const dashboard: ApiPlugin<PluginOptions> = async (app) => {
  await app.register(fastifyStatic, { root: WEB_ROOT, prefix: '/ui/', index: false, maxAge: 60_000 });
  app.get('/', (_request, reply) => reply.sendFile('index.html'));
};
