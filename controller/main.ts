import type { AddressInfo } from 'node:net';
import type { FastifyBaseLogger, FastifyInstance, FastifyServerOptions } from 'fastify';
import { pino, type Logger } from 'pino';
import type { AppContext } from '../api/context.js';
import {
  bootstrapIdentity,
  reapplyBootstrapToken,
  undoBootstrap,
  type BootstrapResult,
  type ReappliedToken,
} from '../src/auth/bootstrap.js';
import type { Config } from '../src/core/config.js';
import { startManagedRedis, type ManagedRedis, type ManagedRedisOptions } from '../src/core/managed-redis.js';
import { fallbackLog } from '../src/core/redis.js';
import { giveUpAfter } from '../src/core/time.js';
import { moveEarlierApps } from '../src/functions/apps/earlier-registry.js';
import type { MetricsScrape } from '../src/metrics/registry.js';
import { openAppContext, type OpenedContext } from './app-context.js';
import { build } from './build.js';
import { startFunctionsListener, type FunctionsListener } from './http/functions-listener.js';
import { publicHostOf, refreshIronJson, writeIronJson, type ServerAddress } from './admin/iron-json.js';
import { removeRunningServer, writeRunningServer } from './admin/running-server.js';
import { startLoops, type RunningLoops } from './loop-runner.js';
import { BACKGROUND_LOOPS } from './loops.js';

export interface RunningController {
  app: FastifyInstance;
  ctx: AppContext;
  url: string;
  port: number;
  /** The port of the functions' own listener (FERRUM_FUNCTIONS_PORT); null without one. */
  functionsPort: number | null;
  /** What the first start created; null when the store already had users. */
  bootstrap: BootstrapResult | null;
  ironJsonPath: string | null;
  /** The redis-server this controller started and supervises (none with REDIS_URL). */
  managedRedis: ManagedRedis | null;
  /**
   * The first step of a graceful stop: /ready answers 503 and answers close their connections,
   * while requests are still served for FERRUM_HTTP_DRAIN_MS (load balancers take the
   * controller out meanwhile); resolves when that window is over.
   */
  drain(): Promise<void>;
  /** Stops the loops, ends long-polls with what they have, lets open requests finish, closes. */
  stop(): Promise<void>;
  /**
   * A stop that cannot wait (a second Ctrl-C): the managed redis-server shuts down at once,
   * writing what it acknowledged to disk; the process should exit next.
   */
  stopNow(): Promise<void>;
}

export interface ControllerOptions {
  logger?: FastifyServerOptions['logger'];
  /** The process's own logger (over `logger`). */
  log?: Logger;
  /** Called when the managed redis-server cannot be kept running (the process should exit non-zero). */
  onFatal?: (error: Error) => void;
  /** How /metrics reads the figures (an HTTP worker's: the installation's, from its primary). */
  metricsScrape?: MetricsScrape;
  /** Aborted: the start is given up before the listener opens (an HTTP worker told to stop). */
  stopRequested?: AbortSignal;
}

/** How long one shutdown step that needs Redis may take before it is given up. */
const STOP_STEP_MS = 2000;
/**
 * How long a stopping controller waits for its requests in flight once its drain is over: with
 * the loops' and the close's STOP_STEP_MS and the default 5 s drain, within the default 20 s
 * shutdown timeout.
 */
const REQUESTS_FINISH_MS = 10_000;

/**
 * Starts a controller: Redis (managed when no REDIS_URL), services, bootstrap, HTTP listener,
 * background loops. Stopping closes them in the reverse order.
 */
export async function startController(config: Config, options: ControllerOptions = {}): Promise<RunningController> {
  const managed = config.redisUrl ? null : await startManagedRedis(managedRedisOptions(config, options));
  const redisUrl = config.redisUrl ?? managed!.url;
  let opened: OpenedContext | null = null;
  let app: FastifyInstance | null = null;
  let bootstrap: BootstrapResult | null = null;
  try {
    opened = await openAppContext(config, redisUrl, options.log ?? loggerOf(options.logger), options.metricsScrape);
    const { ctx } = opened;
    bootstrap = await prepareStore(ctx);
    app = await build(opened);
    options.stopRequested?.throwIfAborted();
    await app.listen({ port: config.port, host: config.host });
    const functionsListener =
      config.functions.port === undefined
        ? null
        : await startFunctionsListener(app, config.functions.port, config.host);
    const port = (app.server.address() as AddressInfo).port;
    const host = publicHostOf(config);
    const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
    const publicUrl = `${config.publicScheme}://${url.slice('http://'.length)}`;
    const loops = await startLoops(BACKGROUND_LOOPS, { ctx, log: app.log, publicUrl });
    const running = { app, ctx, loops, functionsListener, managed };
    const address = { host, port, protocol: config.publicScheme };
    // The data folder is this server's own only with the managed Redis.
    if (managed) writeRunningServer(config.dataDir, address);
    return {
      app,
      ctx,
      url,
      port,
      functionsPort: functionsListener?.port ?? null,
      bootstrap,
      ironJsonPath: saveIronJson(config.dataDir, bootstrap, address, managed !== null),
      managedRedis: managed,
      drain: () => ctx.httpDrain.begin(),
      stop: () => stopController(running).finally(() => removeRunningServer(config.dataDir)),
      stopNow: async () => {
        await managed?.stop();
        removeRunningServer(config.dataDir);
      },
    };
  } catch (error) {
    // A first start that fails (the port in use) leaves no admin whose token nobody saw.
    if (bootstrap && opened) await undoBootstrap(opened.ctx.identity, bootstrap).catch(() => undefined);
    // Closing the server closes the context too (see build).
    await (app ? app.close() : opened?.close());
    await managed?.stop();
    throw error;
  }
}

export function managedRedisOptions(config: Config, options: ControllerOptions): ManagedRedisOptions {
  return {
    dataDir: config.dataDir,
    persistent: true,
    appendfsync: config.redis.appendfsync,
    maxmemoryBytes: config.redis.maxmemoryBytes,
    restartAttempts: config.redis.restartAttempts,
    log: options.log ?? fallbackLog(),
    onGiveUp: (error) => options.onFatal?.(error),
  };
}

/** The first start's bootstrap (null when the store already had users), then the store's one-time moves. */
async function prepareStore(ctx: AppContext): Promise<BootstrapResult | null> {
  const bootstrap = await bootstrapIdentity(ctx.identity, ctx.redis, ctx.keys, ctx.config.bootstrap);
  if (!bootstrap) logReappliedToken(await reapplyBootstrapToken(ctx.identity, ctx.config.bootstrap), ctx.log);
  await ctx.identity.migrations.hashStoredSecrets();
  await ctx.identity.migrations.moveEarlierProjects();
  await moveEarlierApps(ctx.redis, ctx.functions.keys);
  await ctx.worker.clusters.indexEarlierClusters();
  return bootstrap;
}

/**
 * A first start writes iron.json with its new token; every later start on the managed Redis
 * (`ownDataDir`) rewrites the address it serves there, keeping the token.
 */
function saveIronJson(
  dataDir: string,
  bootstrap: BootstrapResult | null,
  address: ServerAddress,
  ownDataDir: boolean,
): string | null {
  if (bootstrap) return writeIronJson(dataDir, { token: bootstrap.token, project_id: bootstrap.projectId, ...address });
  return ownDataDir ? refreshIronJson(dataDir, address) : null;
}

interface Running {
  app: FastifyInstance;
  ctx: AppContext;
  loops: RunningLoops;
  functionsListener: FunctionsListener | null;
  managed: ManagedRedis | null;
}

/** A graceful stop: drain, loops, long-polls, requests in flight, listeners, services, Redis. */
async function stopController({ app, ctx, loops, functionsListener, managed }: Running): Promise<void> {
  void ctx.httpDrain.begin();
  const log = app.log;
  // The loops stop together; with Redis unreachable they are given up after STOP_STEP_MS.
  await giveUpAfter(STOP_STEP_MS, 'the background loops', loops.stop(), log);
  // Long-polls (MQ reserve with wait) end at once with what they have; the other requests
  // in flight (uploads, function calls) get up to REQUESTS_FINISH_MS.
  ctx.mq.close();
  await giveUpAfter(REQUESTS_FINISH_MS, 'requests in flight', ctx.httpDrain.idle(), log);
  await giveUpAfter(STOP_STEP_MS, 'open function calls', functionsListener?.close() ?? Promise.resolve(), log);
  await giveUpAfter(STOP_STEP_MS, 'open HTTP requests', app.close(), log); // closes the context's services too (see build)
  await managed?.stop();
}

function logReappliedToken(outcome: ReappliedToken, log: FastifyBaseLogger): void {
  if (outcome === 'added')
    log.info('FERRUM_BOOTSTRAP_TOKEN was new: added as another admin token of the bootstrap user');
  if (outcome === 'no-admin-user')
    log.warn('FERRUM_BOOTSTRAP_TOKEN is not a token and its admin user (FERRUM_BOOTSTRAP_EMAIL) is gone: not added');
}

/** The process's logger from fastify's `logger` option (silent when absent or false). */
function loggerOf(option: FastifyServerOptions['logger']): Logger {
  if (!option) return pino({ level: 'silent' });
  return option === true ? pino() : pino(option as pino.LoggerOptions);
}
