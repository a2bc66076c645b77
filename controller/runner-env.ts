import type { Config } from '../src/core/config.js';

const MB = 1024 * 1024;

/** The environment a launched runner needs to serve one instance of a cluster against this installation's Redis. */
export function runnerEnvOf(
  config: Config,
  redisUrl: string,
  launch: { clusterId: string; instanceId: string; slots: number; memoryBytes: number },
): Record<string, string> {
  const { runner, worker } = config;
  const env: Record<string, string> = {
    REDIS_URL: config.autoscaler.runnerRedisUrl ?? redisUrl,
    FERRUM_KEY_PREFIX: config.keyPrefix,
    LOG_LEVEL: config.logLevel,
    // Runners on one host network must not fight over a metrics port.
    HOST: '127.0.0.1',
    PORT: '0',
    FERRUM_RUNNER_CLUSTER: launch.clusterId,
    FERRUM_RUNNER_INSTANCE_ID: launch.instanceId,
    FERRUM_RUNNER_SLOTS: String(launch.slots),
    FERRUM_RUNNER_MEMORY_MB: String(Math.max(1, Math.floor(launch.memoryBytes / MB))),
    FERRUM_RUNNER_NETWORK: runner.network,
    FERRUM_RUNNER_PIDS_LIMIT: String(runner.pidsLimit),
    FERRUM_RUNNER_MILLICPUS: String(runner.milliCpus),
    FERRUM_RUNNER_TASK_DIR: runner.taskDir,
    FERRUM_RUNNER_HEARTBEAT_MS: String(runner.heartbeatMs),
    FERRUM_RUNNER_LOCK_MS: String(runner.lockMs),
    FERRUM_RUNNER_STALLED_CHECK_MS: String(runner.stalledCheckMs),
    FERRUM_RUNNER_DRAIN_MS: String(runner.drainMs),
    FERRUM_RUNNER_LOG_FLUSH_MS: String(runner.logFlushMs),
    FERRUM_RUNNER_GATE_RETRY_MS: String(runner.gateRetryMs),
    FERRUM_RUNNER_API_URL: runner.apiUrl,
    FERRUM_WORKER_STACKS: Object.entries(worker.stacks)
      .map(([name, image]) => `${name}=${image}`)
      .join(','),
    FERRUM_WORKER_DEFAULT_STACK: worker.defaultStack,
    FERRUM_WORKER_MAX_LOG_BYTES: String(worker.maxLogBytes),
  };
  // Registry credentials are sealed with this key: runners elsewhere need the same one.
  if (worker.secretKey) env.FERRUM_ENCRYPTION_KEY = worker.secretKey;
  return env;
}
