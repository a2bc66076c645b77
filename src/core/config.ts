import { readAuthSettings, type AuthSettings } from './config/auth.js';
import { readCacheConfig, type CacheConfig } from './config/cache.js';
import {
  readAutoscalerConfig,
  readAwsConfig,
  readClusterPolicy,
  type AutoscalerConfig,
  type AwsConfig,
  type ClusterPolicyConfig,
} from './config/clusters.js';
import type { Env } from './config/env.js';
import { readFunctionsConfig, type FunctionsConfig } from './config/functions.js';
import { readHttpSettings, type HttpSettings } from './config/http.js';
import { readMetricsSettings, type MetricsSettings } from './config/metrics.js';
import { readMqConfig, type MqConfig } from './config/mq.js';
import { readStoreSettings, type StoreSettings } from './config/redis.js';
import { readRunnerConfig, type RunnerConfig } from './config/runner.js';
import { readScheduleConfig, readWorkerConfig, type ScheduleConfig, type WorkerConfig } from './config/worker.js';

export type { AutoscalerConfig, AwsConfig, ClusterPolicyConfig } from './config/clusters.js';
export type { FunctionsConfig } from './config/functions.js';
export type { RedisConfig } from './config/redis.js';
export { RUNNER_METRICS_PORT, type RunnerConfig } from './config/runner.js';
export type { ScheduleConfig, WorkerConfig, ZipLimits } from './config/worker.js';

/**
 * Every setting Ferrum reads from the environment; docs/configuration.md is generated from the lists.
 * Each domain's reader (src/core/config/<domain>.ts) reads its own FERRUM_* variables.
 */
export interface Config extends HttpSettings, StoreSettings, AuthSettings, MetricsSettings {
  worker: WorkerConfig;
  schedules: ScheduleConfig;
  runner: RunnerConfig;
  functions: FunctionsConfig;
  aws: AwsConfig;
  autoscaler: AutoscalerConfig;
  clusters: ClusterPolicyConfig;
  cache: CacheConfig;
  mq: MqConfig;
}

export function loadConfig(env: Env = process.env): Config {
  return {
    ...readHttpSettings(env),
    ...readStoreSettings(env),
    ...readAuthSettings(env),
    ...readMetricsSettings(env),
    worker: readWorkerConfig(env),
    schedules: readScheduleConfig(env),
    runner: readRunnerConfig(env),
    functions: readFunctionsConfig(env),
    aws: readAwsConfig(env),
    autoscaler: readAutoscalerConfig(env),
    clusters: readClusterPolicy(env),
    cache: readCacheConfig(env),
    mq: readMqConfig(env),
  };
}

/** What a process runs: its shutdown bound covers what it drains. */
export type ProcessRole = 'controller' | 'runner' | 'all-in-one';

/**
 * How long SIGTERM/SIGINT may take before the process exits anyway: FERRUM_SHUTDOWN_TIMEOUT_MS,
 * else the role's drain plus time to finish. A controller's default (HTTP drain + 15 s, 20 s)
 * stays inside Kubernetes' default 30 s grace period.
 */
export function shutdownTimeoutMs(config: Config, role: ProcessRole): number {
  if (config.shutdownTimeoutMs !== undefined) return config.shutdownTimeoutMs;
  const controller = config.httpDrainMs + 15_000;
  const runner = config.runner.drainMs + 20_000;
  if (role === 'controller') return controller;
  if (role === 'runner') return runner;
  return Math.max(controller, runner);
}
