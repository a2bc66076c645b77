import type { Config } from '../core/config.js';
import type { KeySpace, RedisClient } from '../core/redis.js';
import { fullestMaster } from './redis-memory.js';
import { Gauge, Histogram, type Registry } from 'prom-client';
import { perRegistry } from './per-registry.js';

interface ProbeMetrics {
  roundTrip: Histogram;
  up: Gauge;
  writable: Gauge;
  memoryUsed: Gauge;
  memoryMax: Gauge;
}

/** The probe's metrics of a registry (one per registry: controller and runner may share one). */
function metricsOf(registry: Registry): ProbeMetrics {
  const create = (): ProbeMetrics => ({
    roundTrip: new Histogram({
      name: 'ferrum_redis_round_trip_seconds',
      help: "Round-trip time of a PING on this process's Redis command connection, in seconds",
      buckets: [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1],
      registers: [registry],
    }),
    up: new Gauge({
      name: 'ferrum_redis_up',
      help: "Whether this process's last PING to Redis was answered in time (1) or not (0)",
      registers: [registry],
      aggregator: 'min',
    }),
    writable: new Gauge({
      name: 'ferrum_redis_writable',
      help: "Whether Redis accepted this process's last probe write (1) or refused it or did not answer in time (0)",
      registers: [registry],
      aggregator: 'min',
    }),
    memoryUsed: new Gauge({
      name: 'ferrum_redis_memory_used_bytes',
      help: 'Memory Redis uses (INFO memory used_memory; of a Cluster, the master fullest against its maxmemory), in bytes',
      registers: [registry],
      aggregator: 'max',
    }),
    memoryMax: new Gauge({
      name: 'ferrum_redis_memory_max_bytes',
      help: "Redis's maxmemory (0: no limit) of the master ferrum_redis_memory_used_bytes reports, in bytes; past it Redis refuses writes (noeviction)",
      registers: [registry],
      aggregator: 'max',
    }),
  });
  return perRegistry(registry, 'redis-probe', create);
}

export interface RedisProbeOptions {
  /** How often to probe (0 = never). */
  intervalMs: number;
  /** A ping or write not answered within this long counts as failed. */
  timeoutMs: number;
  /** The short-lived key the probe writes. */
  probeKey: string;
}

function within<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('timeout')), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/**
 * Every `intervalMs`: PINGs `redis` (ferrum_redis_up, and the round trip when answered), reads
 * how full it is (ferrum_redis_memory_used_bytes and _max_bytes, which the FerrumRedisMemoryHigh
 * alert compares), then writes a short-lived key (ferrum_redis_writable: a replica, a full memory or a full disk answer
 * PING but refuse writes). A probe that hangs (Redis paused) fails after `timeoutMs`, so the
 * gauges turn 0 while Redis is stuck, not only once the connection drops.
 */
export function startRedisProbe(redis: RedisClient, registry: Registry, options: RedisProbeOptions): () => void {
  const metrics = metricsOf(registry);
  if (options.intervalMs <= 0) return () => {};
  let probing = false;
  const probe = async () => {
    if (probing) return;
    probing = true;
    try {
      await probeOnce(redis, metrics, options);
    } finally {
      probing = false;
    }
  };
  void probe();
  const timer = setInterval(() => void probe(), options.intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}

/** One probe: PING, INFO memory (the memory gauges), then the short-lived write. */
async function probeOnce(redis: RedisClient, metrics: ProbeMetrics, options: RedisProbeOptions): Promise<void> {
  const end = metrics.roundTrip.startTimer();
  let answered = false;
  try {
    await within(redis.ping(), options.timeoutMs);
    answered = true;
    end();
    const memory = await within(fullestMaster(redis), options.timeoutMs);
    metrics.memoryUsed.set(memory.used);
    metrics.memoryMax.set(memory.max);
    await within(redis.set(options.probeKey, String(Date.now()), 'PX', 10_000), options.timeoutMs);
    metrics.writable.set(1);
  } catch {
    metrics.writable.set(0);
  } finally {
    metrics.up.set(answered ? 1 : 0);
  }
}

/** The probe's options from the configuration: FERRUM_METRICS_REDIS_PING_MS, the command timeout. */
export function redisProbeOptions(config: Config, keys: KeySpace): RedisProbeOptions {
  return {
    intervalMs: config.metrics.redisPingMs,
    timeoutMs: config.redis.commandTimeoutMs,
    probeKey: keys.of('metrics-probe'),
  };
}
