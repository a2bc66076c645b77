import type { Registry } from 'prom-client';
import { EventBus } from '../src/core/bus.js';
import type { Config } from '../src/core/config.js';
import type { StateLogger } from '../src/core/failure-log.js';
import { createRedisClient, KeySpace, SUBSCRIBER_OPTIONS, type RedisClient } from '../src/core/redis.js';
import { openFunctionStores, type FunctionStores } from '../src/functions/services.js';
import { redisProbeOptions, startRedisProbe } from '../src/metrics/redis-probe.js';
import { redisErrorsCounter } from '../src/metrics/registry.js';
import { openIdentityStores } from '../src/auth/identity.js';
import { projectQuotasFrom } from '../src/auth/quotas.js';
import { openWorkerServices, type WorkerServices } from '../src/worker/services.js';

/**
 * A runner process's shared connections and services, opened once (openRunnerContext: the
 * runner's composition root) and closed together once the runner has drained. The runner's own
 * parts over them (its BullMQ Worker, executor, function worker) start and stop with the runner.
 */
export interface RunnerContext {
  config: Config;
  redisUrl: string;
  redis: RedisClient;
  keys: KeySpace;
  bus: EventBus;
  worker: WorkerServices;
  functions: FunctionStores;
  /** The BullMQ Worker's connection (BullMQ wants one that retries forever). */
  taskQueueConnection: RedisClient;
  /** The function worker's connection: waiting for calls (BLPOP) blocks it. */
  functionCallConnection: RedisClient;
}

export interface OpenedRunnerContext {
  ctx: RunnerContext;
  close(): Promise<void>;
}

export function openRunnerContext(
  config: Config,
  redisUrl: string,
  registry: Registry,
  log: StateLogger,
): OpenedRunnerContext {
  // Every connection's errors count in ferrum_redis_errors_total on the runner's /metrics.
  const redisErrors = redisErrorsCounter(registry);
  const onError = (kind: string) => redisErrors.inc({ kind });
  const redis = createRedisClient(redisUrl, 'runner', { onError, log });
  const subscriber = createRedisClient(redisUrl, 'runner-subscriber', { ...SUBSCRIBER_OPTIONS, onError, log });
  const bus = new EventBus(subscriber, redis);
  const keys = new KeySpace(config.keyPrefix);
  const blockingOptions = { maxRetriesPerRequest: null, enableAutoPipelining: false, onError, log };
  const ctx: RunnerContext = {
    config,
    redisUrl,
    redis,
    keys,
    bus,
    worker: openWorkerServices({
      config,
      redis,
      redisUrl,
      keys,
      bus,
      projectQuotas: projectQuotasFrom(openIdentityStores(redis, keys).projects, config.quotas),
      onRedisError: onError,
      log,
    }),
    functions: openFunctionStores(config, redis, keys),
    taskQueueConnection: createRedisClient(redisUrl, 'runner-bullmq', blockingOptions),
    functionCallConnection: createRedisClient(redisUrl, 'runner-functions', blockingOptions),
  };
  const stopRoundTrip = startRedisProbe(redis, registry, redisProbeOptions(config, keys));
  let closing: Promise<void> | null = null;
  return {
    ctx,
    close: () =>
      // In the reverse order of opening: what uses a connection closes before it.
      (closing ??= (async () => {
        stopRoundTrip();
        ctx.functionCallConnection.disconnect();
        ctx.taskQueueConnection.disconnect();
        await ctx.worker.close();
        await bus.close();
        redis.disconnect();
      })()),
  };
}
