import type { AddressInfo } from 'node:net';
import type { FastifyInstance, FastifyServerOptions } from 'fastify';
import { pino, type Logger } from 'pino';
import type { AppContext } from './app-context.js';
import { bootstrapIdentity, type BootstrapResult } from '../src/auth/bootstrap.js';
import type { Config } from '../src/core/config.js';
import { startManagedRedis, type ManagedRedis } from '../src/core/managed-redis.js';
import { fallbackLog } from '../src/core/redis.js';
import { giveUpAfter } from '../src/core/time.js';
import { openAppContext, type OpenedContext } from './app-context.js';
import { build } from './build.js';
import { startAutoscaler } from './autoscaler.js';
import { startCacheSweeper } from './cache-sweeper.js';
import { startHistorySampler } from './history-sampler.js';
import { startMetricsSampler } from './metrics-sampler.js';
import { startRedisRoundTrip } from '../src/metrics/redis-round-trip.js';
import { startScheduler } from './scheduler.js';
import { startTaskSweeper } from './task-sweeper.js';
import { startProjectJanitor } from './project-janitor.js';
import { writeIronJson } from './iron-json.js';
import { moveEarlierApps } from '../src/functions/earlier-registry.js';
import { startPushDeliverer } from './push-deliverer.js';

export interface RunningController {
  app: FastifyInstance;
  ctx: AppContext;
  url: string;
  port: number;
  /** What the first start created; null when the store already had users. */
  bootstrap: BootstrapResult | null;
  ironJsonPath: string | null;
  /** The redis-server this controller started and supervises (none with REDIS_URL). */
  managedRedis: ManagedRedis | null;
  stop(): Promise<void>;
}

export interface ControllerOptions {
  logger?: FastifyServerOptions['logger'];
  /** Called when the managed redis-server cannot be kept running (the process should exit non-zero). */
  onFatal?: (error: Error) => void;
}

/** How long one shutdown step that needs Redis may take before it is given up. */
const STOP_STEP_MS = 2000;

/**
 * Starts a controller: Redis (managed when no REDIS_URL), services, bootstrap, HTTP listener.
 * Stopping closes them in the reverse order.
 */
export async function startController(config: Config, options: ControllerOptions = {}): Promise<RunningController> {
  let managed: ManagedRedis | null = null;
  if (!config.redisUrl) {
    managed = await startManagedRedis({
      dataDir: config.dataDir,
      persistent: true,
      appendfsync: config.redis.appendfsync,
      maxmemoryBytes: config.redis.maxmemoryBytes,
      restartAttempts: config.redis.restartAttempts,
      log: fallbackLog(),
      onGiveUp: (error) => options.onFatal?.(error),
    });
  }
  const redisUrl = config.redisUrl ?? managed!.url;
  let opened: OpenedContext | null = null;
  try {
    opened = await openAppContext(config, redisUrl, loggerOf(options.logger));
    const { ctx } = opened;
    const bootstrap = await bootstrapIdentity(ctx.identity, ctx.redis, ctx.keys, config.bootstrap);
    await ctx.identity.hashStoredSecrets();
    await ctx.identity.moveEarlierProjects();
    await moveEarlierApps(ctx.redis, ctx.functions.keys);
    await ctx.worker.clusters.indexEarlierClusters();
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
    const projectJanitor = startProjectJanitor(ctx, app.log);
    const autoscaler = await startAutoscaler(ctx, app.log, `${config.publicScheme}://${url.slice('http://'.length)}`);
    const metricsSampler = startMetricsSampler(ctx, mq, app.log);
    const stopRedisRoundTrip = startRedisRoundTrip(ctx.redis, ctx.metrics.registry, config.metrics.redisPingMs);
    return {
      app,
      ctx,
      url,
      port,
      bootstrap,
      ironJsonPath,
      managedRedis: managed,
      async stop() {
        stopRedisRoundTrip();
        const log = app.log;
        // The loops stop together; with Redis unreachable they are given up after STOP_STEP_MS.
        const loops = Promise.all([
          metricsSampler.stop(),
          pushDeliverer?.stop(),
          mq.stopBackgroundWork(),
          projectJanitor.stop(),
          taskSweeper.stop(),
          scheduler.stop(),
          autoscaler.stop(),
          historySampler.stop(),
          cacheSweeper.stop(),
        ]);
        await giveUpAfter(STOP_STEP_MS, 'the background loops', loops, log);
        await giveUpAfter(STOP_STEP_MS, 'open HTTP requests', app.close(), log); // closes the context's services too (see build)
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
