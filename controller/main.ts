import type { AddressInfo } from 'node:net';
import type { FastifyInstance, FastifyServerOptions } from 'fastify';
import { pino, type Logger } from 'pino';
import type { AppContext } from './app-context.js';
import { bootstrapIdentity, type BootstrapResult } from '../src/auth/bootstrap.js';
import type { Config } from '../src/core/config.js';
import { startManagedRedis, type ManagedRedis } from '../src/core/managed-redis.js';
import { openAppContext, type OpenedContext } from './app-context.js';
import { build } from './build.js';
import { startAutoscaler } from './autoscaler.js';
import { startCacheSweeper } from './cache-sweeper.js';
import { startHistorySampler } from './history-sampler.js';
import { startMetricsSampler } from './metrics-sampler.js';
import { startRedisRoundTrip } from '../src/metrics/redis-round-trip.js';
import { startScheduler } from './scheduler.js';
import { startTaskSweeper } from './task-sweeper.js';
import { writeIronJson } from './iron-json.js';
import { startPushDeliverer } from './push-deliverer.js';

export interface RunningController {
  app: FastifyInstance;
  ctx: AppContext;
  url: string;
  port: number;
  /** What the first start created; null when the store already had users. */
  bootstrap: BootstrapResult | null;
  ironJsonPath: string | null;
  stop(): Promise<void>;
}

/**
 * Starts a controller: Redis (managed when no REDIS_URL), services, bootstrap, HTTP listener.
 * Stopping closes them in the reverse order.
 */
export async function startController(
  config: Config,
  options: { logger?: FastifyServerOptions['logger'] } = {},
): Promise<RunningController> {
  let managed: ManagedRedis | null = null;
  if (!config.redisUrl) managed = await startManagedRedis({ dataDir: config.dataDir, persistent: true });
  const redisUrl = config.redisUrl ?? managed!.url;
  let opened: OpenedContext | null = null;
  try {
    opened = await openAppContext(config, redisUrl, loggerOf(options.logger));
    const { ctx } = opened;
    const bootstrap = await bootstrapIdentity(ctx.identity, ctx.redis, ctx.keys, config.bootstrap);
    await ctx.identity.hashStoredSecrets();
    const app = await build(opened);
    await app.listen({ port: config.port, host: config.host });
    const { mq } = ctx;
    mq.startBackgroundWork();
    const port = (app.server.address() as AddressInfo).port;
    const host = config.publicHost ?? (config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host);
    const ironJsonPath = bootstrap
      ? writeIronJson(config.dataDir, {
          token: bootstrap.token,
          project_id: bootstrap.projectId,
          host,
          port,
          scheme: config.publicScheme,
        })
      : null;
    const cacheSweeper = startCacheSweeper(ctx, app.log);
    const historySampler = startHistorySampler(ctx, mq, app.log);
    const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
    const pushDeliverer = startPushDeliverer(
      ctx,
      mq,
      app.log,
      `${config.publicScheme}://${url.slice('http://'.length)}`,
    );
    const scheduler = startScheduler(ctx, app.log);
    const taskSweeper = startTaskSweeper(ctx, app.log);
    const autoscaler = await startAutoscaler(ctx, app.log);
    const metricsSampler = startMetricsSampler(ctx, mq, app.log);
    const stopRedisRoundTrip = startRedisRoundTrip(ctx.redis, ctx.metrics.registry, config.metrics.redisPingMs);
    return {
      app,
      ctx,
      url,
      port,
      bootstrap,
      ironJsonPath,
      async stop() {
        stopRedisRoundTrip();
        await metricsSampler.stop();
        await pushDeliverer?.stop();
        await mq.stopBackgroundWork();
        await taskSweeper.stop();
        await scheduler.stop();
        await autoscaler.stop();
        await historySampler.stop();
        await cacheSweeper.stop();
        await app.close(); // closes the context's services too (see build)
        await managed?.stop();
      },
    };
  } catch (error) {
    await opened?.close();
    await managed?.stop();
    throw error;
  }
}

/** The process's logger from fastify's `logger` option (silent when absent or false). */
function loggerOf(option: FastifyServerOptions['logger']): Logger {
  if (!option) return pino({ level: 'silent' });
  return option === true ? pino() : pino(option as pino.LoggerOptions);
}
