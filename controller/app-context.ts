import type { Redis } from 'ioredis';
import type { FastifyBaseLogger } from 'fastify';
import { Authenticator } from '../src/auth/authenticator.js';
import { IdentityStore } from '../src/auth/identity-store.js';
import { LoginGuard } from '../src/auth/login-guard.js';
import { EventBus } from '../src/core/bus.js';
import type { Config } from '../src/core/config.js';
import { createRedisClient, KeySpace } from '../src/core/redis.js';
import { openFunctionStores, type FunctionStores } from '../src/functions/services.js';
import { createMetrics, type Metrics } from '../src/metrics/registry.js';
import { MessageQueue } from '../src/mq/service.js';
import { openWorkerServices, type WorkerServices } from '../src/worker/services.js';

/**
 * A controller process's shared connections and services, opened once (openAppContext) and
 * given to every API plugin and background loop; nothing opens its own copy.
 */
export interface AppContext {
  config: Config;
  log: FastifyBaseLogger;
  redis: Redis;
  redisUrl: string;
  keys: KeySpace;
  bus: EventBus;
  identity: IdentityStore;
  authenticator: Authenticator;
  loginGuard: LoginGuard;
  metrics: Metrics;
  /** The message queue service (both API versions, the push deliverer, the samplers). */
  mq: MessageQueue;
  /** The worker service's stores and services, over the one BullMQ connection. */
  worker: WorkerServices;
  /** The functions platform's stores. */
  functions: FunctionStores;
}

export interface OpenedContext {
  ctx: AppContext;
  /** Closes everything opened, last first; safe to call twice. */
  close(): Promise<void>;
}

/** Opens the Redis connections and services one controller process shares across requests and loops. */
export async function openAppContext(config: Config, redisUrl: string, log: FastifyBaseLogger): Promise<OpenedContext> {
  const redis = createRedisClient(redisUrl, 'commands');
  const subscriber = createRedisClient(redisUrl, 'subscriber', { enableAutoPipelining: false });
  const keys = new KeySpace(config.keyPrefix);
  const bus = new EventBus(subscriber, redis);
  const metrics = createMetrics();
  const identity = new IdentityStore(redis, keys);
  const authenticator = new Authenticator(identity, bus, keys, config.tokenCacheMs);
  const worker = openWorkerServices({ config, redis, redisUrl, keys, bus });
  const mq = new MessageQueue({
    redis,
    keys,
    bus,
    log,
    sweepIntervalMs: config.mq.sweepIntervalMs,
    registry: metrics.registry,
    pushStatusRetentionMs: config.mq.push.statusRetentionMs,
  });
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
  const ctx: AppContext = {
    config,
    log,
    redis,
    redisUrl,
    keys,
    bus,
    identity,
    authenticator,
    loginGuard: new LoginGuard(redis, keys, config.login),
    metrics,
    mq,
    worker,
    functions: openFunctionStores(config, redis, keys),
  };
  return { ctx, close };
}
