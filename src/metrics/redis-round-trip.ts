import type { RedisClient } from '../core/redis.js';
import { Histogram, type Registry } from 'prom-client';
import { perRegistry } from './per-registry.js';

/** ferrum_redis_round_trip_seconds of a registry (one per registry: controller and runner may share one). */
function histogramOf(registry: Registry): Histogram {
  const create = () =>
    new Histogram({
      name: 'ferrum_redis_round_trip_seconds',
      help: "Round-trip time of a PING on this process's Redis command connection, in seconds",
      buckets: [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1],
      registers: [registry],
    });
  return perRegistry(registry, 'redis-round-trip', create);
}

/** Pings `redis` every `intervalMs` (0 = never) and observes the round trip; a failed ping is not observed. */
export function startRedisRoundTrip(redis: RedisClient, registry: Registry, intervalMs: number): () => void {
  const histogram = histogramOf(registry);
  if (intervalMs <= 0) return () => {};
  let pinging = false;
  const ping = async () => {
    if (pinging) return;
    pinging = true;
    const end = histogram.startTimer();
    try {
      await redis.ping();
      end();
    } catch {
      // Redis unreachable: the readiness probe and the failing requests report it.
    } finally {
      pinging = false;
    }
  };
  void ping();
  const timer = setInterval(() => void ping(), intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
