import { type Env, intFrom, listFrom, nonEmpty } from './env.js';
import { HTTP_SETTINGS } from './http.js';
import { defineSettings, intOf, textOf } from './setting.js';

export const RUNNER_SETTINGS = defineSettings({
  FERRUM_RUNNER_SLOTS: {
    fallback: 2,
    meaning: 'tasks a runner runs at once',
  },
  FERRUM_RUNNER_MEMORY_MB: {
    fallback: 512,
    meaning: 'memory limit per task (swap included)',
  },
  FERRUM_RUNNER_PIDS_LIMIT: {
    fallback: 256,
    meaning: 'process limit per task',
  },
  FERRUM_RUNNER_MILLICPUS: {
    fallback: 1000,
    meaning: 'CPU limit per task, in thousandths of a CPU',
  },
  FERRUM_RUNNER_NOFILE: {
    fallback: 1024,
    meaning: 'open-file limit (`ulimit -n`) of task containers',
  },
  FERRUM_RUNNER_DISK_MB: {
    fallback: 1024,
    meaning:
      "writable space of a task container: a storage quota on its writable layer where the engine supports one (overlay2 on xfs with pquota, btrfs, zfs), else a tmpfs of this size for the task folder (counted in the task's memory; the image needs `/bin/sh`, and `cp` for a zip package's task or files over 32 KiB); `0` = unlimited",
  },
  FERRUM_RUNNER_HEARTBEAT_MS: {
    fallback: 5000,
    meaning: 'runner heartbeat; a runner is gone after 3 missed beats',
  },
  FERRUM_RUNNER_LOCK_MS: {
    fallback: 30000,
    meaning: 'a task whose runner stops renewing its lock this long is taken back',
  },
  FERRUM_RUNNER_STALLED_CHECK_MS: {
    fallback: 30000,
    meaning: 'how often runners look for such tasks and for left-behind containers',
  },
  FERRUM_RUNNER_DRAIN_MS: {
    fallback: 60000,
    meaning: 'on SIGTERM, how long running tasks may go on',
  },
  FERRUM_RUNNER_LOG_FLUSH_MS: {
    fallback: 100,
    meaning: 'how often output is appended to task logs',
  },
  FERRUM_RUNNER_GATE_RETRY_MS: {
    fallback: 1000,
    meaning: "how soon a task held back by its package's `max_concurrency` is tried again",
  },
  FERRUM_RUNNER_METRICS_PORT: {
    shown: '`PORT` when set, else `8081`',
    meaning:
      "port of a standalone runner's (`ferrum runner`) `/metrics` and `/health`, on `HOST`; apart from the controller's `8080` so both fit on one machine; `0` picks a free port. A runner that cannot listen on it exits at once (status 1) with a message naming this setting, before it takes any task",
  },
  FERRUM_RUNNER_CLUSTER: {
    fallback: 'default',
    meaning: 'the cluster whose tasks a runner takes',
  },
  FERRUM_RUNNER_NETWORK: {
    fallback: 'none',
    meaning:
      "Docker network mode of task and function containers (`none`, `host`, `bridge`, a network name); only this operator setting chooses it, never a code package or request. **`host` lets tenants' code reach every service on the runner machine's loopback (Redis included) — the runner logs a warning at start; use it only with trusted tenants**",
  },
  FERRUM_RUNNER_TASK_DIR: {
    fallback: '/mnt/task',
    meaning: 'where payload, config and zip code go in the container',
  },
  FERRUM_RUNNER_INSTANCE_ID: {
    shown: 'a new id',
    meaning: 'the cluster instance a runner serves; set by the autoscaler for the runners it launches',
  },
  FERRUM_RUNNER_CAP_ADD: {
    shown: 'empty',
    meaning:
      'capabilities given back to task containers (comma-separated, e.g. `CHOWN,NET_BIND_SERVICE`); all others are dropped',
  },
  FERRUM_RUNNER_API_URL: {
    shown: '`FERRUM_API_URL`, else `http://127.0.0.1:$PORT`',
    meaning:
      "the API URL task containers use (`FERRUM_API_URL`, `IRON_HOST`/`IRON_PORT`/`IRON_PROTOCOL`/`IRON_SCHEME`); must be reachable from the container's network (see [How tasks run](tasks-and-functions.md#how-tasks-run))",
  },
  FERRUM_API_URL: {
    shown: '—',
    meaning: 'gateway runner: the Ferrum API it reaches (`ferrum runner --api`)',
  },
  FERRUM_RUNNER_TOKEN: {
    shown: '—',
    meaning:
      'gateway runner: a runner token of its cluster (`ferrum runner --token`); with it the runner needs no `REDIS_URL`',
  },
  DOCKER_HOST: {
    shown: 'the local socket',
    meaning: 'Docker engine of the runner',
  },
});

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
    cluster: textOf(env, RUNNER_SETTINGS.FERRUM_RUNNER_CLUSTER),
    clusterSet: Boolean(env.FERRUM_RUNNER_CLUSTER),
    gateway: gatewayOf(env),
    instanceId: nonEmpty(env.FERRUM_RUNNER_INSTANCE_ID),
    slots: Math.max(1, intOf(env, RUNNER_SETTINGS.FERRUM_RUNNER_SLOTS)),
    network: textOf(env, RUNNER_SETTINGS.FERRUM_RUNNER_NETWORK),
    memoryMb: intOf(env, RUNNER_SETTINGS.FERRUM_RUNNER_MEMORY_MB),
    pidsLimit: intOf(env, RUNNER_SETTINGS.FERRUM_RUNNER_PIDS_LIMIT),
    milliCpus: intOf(env, RUNNER_SETTINGS.FERRUM_RUNNER_MILLICPUS),
    nofile: Math.max(16, intOf(env, RUNNER_SETTINGS.FERRUM_RUNNER_NOFILE)),
    capAdd: listFrom(env.FERRUM_RUNNER_CAP_ADD).map((cap) => cap.toUpperCase()),
    diskMb: intOf(env, RUNNER_SETTINGS.FERRUM_RUNNER_DISK_MB),
    taskDir: textOf(env, RUNNER_SETTINGS.FERRUM_RUNNER_TASK_DIR),
    heartbeatMs: Math.max(100, intOf(env, RUNNER_SETTINGS.FERRUM_RUNNER_HEARTBEAT_MS)),
    lockMs: Math.max(500, intOf(env, RUNNER_SETTINGS.FERRUM_RUNNER_LOCK_MS)),
    stalledCheckMs: Math.max(500, intOf(env, RUNNER_SETTINGS.FERRUM_RUNNER_STALLED_CHECK_MS)),
    drainMs: intOf(env, RUNNER_SETTINGS.FERRUM_RUNNER_DRAIN_MS),
    logFlushMs: Math.max(10, intOf(env, RUNNER_SETTINGS.FERRUM_RUNNER_LOG_FLUSH_MS)),
    apiUrl:
      env.FERRUM_RUNNER_API_URL || nonEmpty(env.FERRUM_API_URL) || `http://127.0.0.1:${intOf(env, HTTP_SETTINGS.PORT)}`,
    gateRetryMs: Math.max(10, intOf(env, RUNNER_SETTINGS.FERRUM_RUNNER_GATE_RETRY_MS)),
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
