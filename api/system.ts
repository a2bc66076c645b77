import type { FastifyPluginAsync } from 'fastify';
import { pingMs } from '../src/core/redis.js';
import type { PluginOptions } from './context.js';

/** Liveness, readiness and Prometheus metrics; no authentication. */
export const systemApi: FastifyPluginAsync<PluginOptions> = async (app, { ctx }) => {
  app.get('/health', async () => ({ status: 'ok' }));

  app.get('/ready', async (_request, reply) => {
    try {
      const ms = await Promise.race([
        pingMs(ctx.redis),
        new Promise<never>((_, reject) => setTimeout(() => reject(new Error('timeout')), 2000)),
      ]);
      return { status: 'ready', redis_ms: Number(ms.toFixed(3)) };
    } catch (error) {
      return reply.code(503).send({ msg: `Redis unreachable: ${(error as Error).message}` });
    }
  });

  app.get('/metrics', async (_request, reply) => {
    reply.header('Content-Type', ctx.metrics.registry.contentType);
    return ctx.metrics.registry.metrics();
  });
};
