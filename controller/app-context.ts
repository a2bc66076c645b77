import type { FastifyBaseLogger } from 'fastify';
import { Authenticator } from '../src/auth/authenticator.js';
import { openIdentityStores, type IdentityStores } from '../src/auth/identity.js';
import { openIdentityServices, type IdentityServices } from '../src/auth/services.js';
import { LoginGuard } from '../src/auth/login-guard.js';
import { EventBus } from '../src/core/bus.js';
import type { Config } from '../src/core/config.js';
import {
  createRedisClient,
  failFast,
  KeySpace,
  SUBSCRIBER_OPTIONS,
  waitForRedis,
  type RedisClient,
} from '../src/core/redis.js';
import { ProjectLifecycle } from '../src/auth/project-lifecycle.js';
import { openFunctionStores, type FunctionStores } from '../src/functions/services.js';
import type { LocalFunctionHost } from '../src/functions/function-calls.js';
import { createMetrics, type Metrics } from '../src/metrics/registry.js';
import { MessageQueue } from '../src/mq/service.js';
import { HttpDrain } from './http-drain.js';
import { openWorkerServices, type WorkerServices } from '../src/worker/services.js';

/**
 * A controller process's shared connections and services, opened once (openAppContext) and
 * given to every API plugin and background loop; nothing opens its own copy.
 */
export interface AppContext {
  config: Config;
  log: FastifyBaseLogger;
  redis: RedisClient;
  redisUrl: string;
  keys: KeySpace;
  bus: EventBus;
  /** Users, tokens and projects (one store each). */
  identity: IdentityStores;
  /** The identity API's operations (users, tokens, projects, sign-in) over those stores. */
  accounts: IdentityServices;
  authenticator: Authenticator;
  loginGuard: LoginGuard;
  metrics: Metrics;
  /** The message queue service (both API versions, the push deliverer, the samplers). */
  mq: MessageQueue;
  /** The worker service's stores and services, over the one BullMQ connection. */
  worker: WorkerServices;
  /** The functions platform's stores. */
  functions: FunctionStores;
  /** Suspension and deletion of projects as the other services see them. */
  lifecycle: ProjectLifecycle;
  /** The runner of the all-in-one server, which may take hot function calls without the queue. */
  localFunctions: LocalFunctionHost;
  /** Set once the process is stopping: /ready answers 503 while requests are still served. */
  httpDrain: HttpDrain;
}

export interface OpenedContext {
  ctx: AppContext;
  /** Closes everything opened, last first; safe to call twice. */
  close(): Promise<void>;
}

/** Opens the Redis connections and services one controller process shares across requests and loops. */
export async function openAppContext(config: Config, redisUrl: string, log: FastifyBaseLogger): Promise<OpenedContext> {
  const metrics = createMetrics();
  const onError = (kind: string) => metrics.redisErrors.inc({ kind });
  const redis = createRedisClient(redisUrl, 'commands', { ...failFast(config.redis.commandTimeoutMs), onError });
  const subscriber = createRedisClient(redisUrl, 'subscriber', { ...SUBSCRIBER_OPTIONS, onError });
  try {
    await waitForRedis(redis, config.redis.connectTimeoutMs);
  } catch (error) {
    redis.disconnect();
    subscriber.disconnect();
    throw new Error(`Redis at ${redisUrl} is unreachable: ${(error as Error).message}`);
  }
  const keys = new KeySpace(config.keyPrefix);
  const bus = new EventBus(subscriber, redis);
  const identity = openIdentityStores(redis, keys);
  const worker = openWorkerServices({ config, redis, redisUrl, keys, bus, onRedisError: onError });
  // Task tokens (given to each running task) are accepted by every project-scoped API.
  const authenticator = new Authenticator(identity, bus, keys, config.tokenCacheMs, worker.taskTokens);
  const mq = new MessageQueue({
    redis,
    keys,
    bus,
    log,
    sweepIntervalMs: config.mq.sweepIntervalMs,
    registry: metrics.registry,
    pushStatusRetentionMs: config.mq.push.statusRetentionMs,
    maxPostMessages: config.mq.maxPostMessages,
  });
  const functions = openFunctionStores(config, redis, keys);
  let closing: Promise<void> | null = null;
  const close = () =>
    (closing ??= (async () => {
      mq.close();
      await worker.close();
      await bus.close();
      redis.disconnect();
    })());
  try {
    await authenticator.start();
  } catch (error) {
    await close();
    throw error;
  }
  const loginGuard = new LoginGuard(redis, keys, config.login);
  const lifecycle = new ProjectLifecycle(redis, keys, functions.notices);
  const accounts = openIdentityServices({
    redis,
    keys,
    stores: identity,
    authenticator,
    lifecycle,
    loginGuard,
    invitations: [worker.clusters],
    limits: { quotas: config.quotas, ...config.tenantLimits },
  });
  const ctx: AppContext = {
    config,
    log,
    redis,
    redisUrl,
    keys,
    bus,
    identity,
    accounts,
    authenticator,
    loginGuard,
    metrics,
    mq,
    worker,
    functions,
    lifecycle,
    localFunctions: { runner: null },
    httpDrain: new HttpDrain(config.httpDrainMs),
  };
  return { ctx, close };
}
