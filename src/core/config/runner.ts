import { type Env, intFrom, listFrom, nonEmpty } from './env.js';

/** A standalone runner's default metrics port: not the controller's 8080, so both fit on one machine. */
export const RUNNER_METRICS_PORT = 8081;

/** Settings of one runner daemon. */
export interface RunnerConfig {
  cluster: string;
  /** Whether FERRUM_RUNNER_CLUSTER was given (a gateway runner otherwise serves its token's cluster). */
  clusterSet: boolean;
  /** Gateway mode: the runner API's base URL (FERRUM_API_URL) and cluster runner token (FERRUM_RUNNER_TOKEN). */
  gateway: { url: string; token: string } | undefined;
  /** The autoscaler's instance record this runner is (FERRUM_RUNNER_INSTANCE_ID); a fresh id when unset. */
  instanceId: string | undefined;
  slots: number;
  /** `none` by default; `host` only by this operator setting, never per code package or request. */
  network: string;
  memoryMb: number;
  pidsLimit: number;
  milliCpus: number;
  /** Open-file limit (ulimit nofile) of task containers. */
  nofile: number;
  /** Capabilities given back to task containers (all are dropped otherwise). */
  capAdd: string[];
  /** Writable space of a task container in MiB (storage quota or a tmpfs task folder); 0 = unlimited. */
  diskMb: number;
  taskDir: string;
  heartbeatMs: number;
  /** A task whose runner stops renewing its lock for this long is taken back. */
  lockMs: number;
  stalledCheckMs: number;
  drainMs: number;
  logFlushMs: number;
  /** The API as containers reach it (FERRUM_API_URL, IRON_HOST/IRON_PORT/IRON_PROTOCOL). */
  apiUrl: string;
  /** How soon a task that found its code package's max_concurrency slots all held is tried again. */
  gateRetryMs: number;
  /**
   * Port of a standalone runner's /metrics and /health (FERRUM_RUNNER_METRICS_PORT, else PORT,
   * else its own default, apart from the controller's); 0 picks a free one.
   */
  metricsPort: number;
}

export function readRunnerConfig(env: Env): RunnerConfig {
  return {
    cluster: env.FERRUM_RUNNER_CLUSTER || 'default',
    clusterSet: Boolean(env.FERRUM_RUNNER_CLUSTER),
    gateway: gatewayOf(env),
    instanceId: nonEmpty(env.FERRUM_RUNNER_INSTANCE_ID),
    slots: Math.max(1, intFrom(env, 'FERRUM_RUNNER_SLOTS', 2)),
    network: env.FERRUM_RUNNER_NETWORK || 'none',
    memoryMb: intFrom(env, 'FERRUM_RUNNER_MEMORY_MB', 512),
    pidsLimit: intFrom(env, 'FERRUM_RUNNER_PIDS_LIMIT', 256),
    milliCpus: intFrom(env, 'FERRUM_RUNNER_MILLICPUS', 1000),
    nofile: Math.max(16, intFrom(env, 'FERRUM_RUNNER_NOFILE', 1024)),
    capAdd: listFrom(env.FERRUM_RUNNER_CAP_ADD).map((cap) => cap.toUpperCase()),
    diskMb: intFrom(env, 'FERRUM_RUNNER_DISK_MB', 1024),
    taskDir: env.FERRUM_RUNNER_TASK_DIR || '/mnt/task',
    heartbeatMs: Math.max(100, intFrom(env, 'FERRUM_RUNNER_HEARTBEAT_MS', 5000)),
    lockMs: Math.max(500, intFrom(env, 'FERRUM_RUNNER_LOCK_MS', 30000)),
    stalledCheckMs: Math.max(500, intFrom(env, 'FERRUM_RUNNER_STALLED_CHECK_MS', 30000)),
    drainMs: intFrom(env, 'FERRUM_RUNNER_DRAIN_MS', 60000),
    logFlushMs: Math.max(10, intFrom(env, 'FERRUM_RUNNER_LOG_FLUSH_MS', 100)),
    apiUrl:
      env.FERRUM_RUNNER_API_URL || nonEmpty(env.FERRUM_API_URL) || `http://127.0.0.1:${intFrom(env, 'PORT', 8080)}`,
    gateRetryMs: Math.max(10, intFrom(env, 'FERRUM_RUNNER_GATE_RETRY_MS', 1000)),
    metricsPort: intFrom(env, 'FERRUM_RUNNER_METRICS_PORT', intFrom(env, 'PORT', RUNNER_METRICS_PORT)),
  };
}

/** A runner with FERRUM_RUNNER_TOKEN reaches the installation only through the runner API at FERRUM_API_URL. */
function gatewayOf(env: Env): RunnerConfig['gateway'] {
  const token = nonEmpty(env.FERRUM_RUNNER_TOKEN);
  if (!token) return undefined;
  const url = nonEmpty(env.FERRUM_API_URL);
  if (!url) throw new Error('FERRUM_RUNNER_TOKEN is set: FERRUM_API_URL must name the API the runner reaches');
  if (!/^https?:\/\//.test(url)) throw new Error(`FERRUM_API_URL must be an http(s) URL, not "${url}"`);
  return { url, token };
}
