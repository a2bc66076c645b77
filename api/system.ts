import type { ApiPlugin } from './type-provider.js';
import { fail } from '../src/core/errors.js';
import { isRedisFull, pingMs, REDIS_UNAVAILABLE } from '../src/core/redis.js';
import type { PluginOptions } from './context.js';
import { healthAnswer } from '../src/core/health.js';

/** Liveness, readiness and Prometheus metrics; no authentication. */
export const systemApi: ApiPlugin<PluginOptions> = async (app, { ctx }) => {
  app.get('/health', async () => healthAnswer());

  // Not ready once the controller is stopping (it still serves during its drain window).
  // Ready when Redis takes commands, writes included (a replica or a full disk answer PING but
  // refuse writes): a ping and a short-lived write, each within the command timeout. A full Redis
  // (maxmemory) is no outage: it serves reads and removals, which free it, and every controller
  // taken out at once would block those too; so still ready, with `redis_full`.
  const probeKey = ctx.keys.of('ready-probe');
  app.get('/ready', async (_request, reply) => {
    if (ctx.httpDrain.draining) throw fail('controller_draining');
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('timeout')), ctx.config.redis.commandTimeoutMs + 1000);
    });
    try {
      const ms = await Promise.race([pingMs(ctx.redis), timeout]);
      const full = await Promise.race([ctx.redis.set(probeKey, String(Date.now()), 'PX', 10_000), timeout]).then(
        () => false,
        (error: unknown) => {
          if (isRedisFull(error)) return true;
          throw error;
        },
      );
      return { status: 'ready', redis_ms: Number(ms.toFixed(3)), redis_full: full };
    } catch (error) {
      reply.header('Retry-After', String(REDIS_UNAVAILABLE.retryAfterSeconds));
      throw fail('redis_cannot_take_commands', (error as Error).message);
    } finally {
      clearTimeout(timer);
    }
  });

  app.get('/metrics', async (_request, reply) => {
    reply.header('Content-Type', ctx.metrics.registry.contentType);
    return ctx.metrics.scrape();
  });
};
