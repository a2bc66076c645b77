import type { Config } from '../../src/core/config.js';

const MB = 1024 * 1024;

export interface RunnerLaunch {
  /** The runner API as the instance reaches it. */
  apiUrl: string;
  /** The instance's own runner token. */
  runnerToken: string;
  clusterId: string;
  instanceId: string;
  slots: number;
  memoryBytes: number;
}

/**
 * The environment a launched runner needs to serve one instance of a cluster in gateway mode:
 * the API URL and its own runner token. No Redis URL, password or encryption key: the
 * controller changes tasks and opens registry credentials for it.
 */
export function runnerEnvOf(config: Config, launch: RunnerLaunch): Record<string, string> {
  const { runner, worker } = config;
  return {
    FERRUM_API_URL: launch.apiUrl,
    FERRUM_RUNNER_TOKEN: launch.runnerToken,
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
    FERRUM_RUNNER_API_URL: launch.apiUrl,
    FERRUM_WORKER_STACKS: Object.entries(worker.stacks)
      .map(([name, image]) => `${name}=${image}`)
      .join(','),
    FERRUM_WORKER_DEFAULT_STACK: worker.defaultStack,
    FERRUM_WORKER_MAX_LOG_BYTES: String(worker.maxLogBytes),
  };
}
