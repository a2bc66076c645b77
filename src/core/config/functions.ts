import os from 'node:os';
import path from 'node:path';
import { type Env, intFrom, nonEmpty } from './env.js';
import { defineSettings, intOf, textOf } from './setting.js';

export const FUNCTIONS_SETTINGS = defineSettings({
  FERRUM_FUNCTIONS_RUNNER_SLOTS: {
    fallback: 8,
    meaning: 'most function calls one runner runs at once',
  },
  FERRUM_FUNCTIONS_BODY_LIMIT: {
    fallback: 6 * 1024 * 1024,
    meaning: 'largest request body of a function call, bytes',
  },
  FERRUM_FUNCTIONS_MAX_ANSWER_BYTES: {
    fallback: 6 * 1024 * 1024,
    meaning:
      'largest answer body of a function call, bytes; a larger answer is refused with 502 naming the limit (the call is recorded as an error)',
  },
  FERRUM_FUNCTIONS_MAX_MEMORY_MB: {
    fallback: 4096,
    meaning: 'largest route `memory`',
  },
  FERRUM_FUNCTIONS_QUEUE_WAIT_MS: {
    fallback: 30_000,
    meaning: 'how long a sync call waits for a runner to take it',
  },
  FERRUM_FUNCTIONS_GRACE_MS: {
    fallback: 30_000,
    meaning: 'how long past the route timeout a controller waits (container start, image pull)',
  },
  FERRUM_FUNCTIONS_CALL_RETENTION_MS: {
    fallback: 7 * 24 * 3_600_000,
    meaning: 'how long call records and logs are kept',
  },
  FERRUM_FUNCTIONS_MAX_LOG_BYTES: {
    fallback: 1024 * 1024,
    meaning: 'most stderr kept per call',
  },
  FERRUM_FUNCTIONS_PROJECT_SLOTS: {
    shown: 'half of `FERRUM_FUNCTIONS_RUNNER_SLOTS`, rounded up',
    meaning:
      "most of one runner's slots the calls of one project hold at once; its further calls wait while other projects' calls run",
  },
  FERRUM_FUNCTIONS_BUSY_WAIT_MS: {
    fallback: 10_000,
    meaning: "longest a call waits for a busy route's hot container before 503",
  },
  FERRUM_FUNCTIONS_MAX_WAITING_CALLS: {
    fallback: 100,
    meaning: 'most calls of one route waiting for a hot container on one runner; more get 503 at once',
  },
  FERRUM_FUNCTIONS_PROJECT_HOT_CONTAINERS: {
    fallback: 20,
    meaning:
      "most hot containers the routes of one project keep on one runner at once; past it an idle one of the project's other routes is stopped to make room, else the call waits for one of its route's own or gets 503",
  },
  FERRUM_FUNCTIONS_MAX_IDLE_SECONDS: {
    fallback: 600,
    meaning: "longest a runner keeps an idle hot container, whatever the route's `idle_timeout` (up to 3600) asks",
  },
  FERRUM_FUNCTIONS_RECORD_FLUSH_MS: {
    fallback: 100,
    meaning:
      "how often ended calls' records and logs are written, in one batch (each batch is a round trip and two scripts, whatever its size); a crash of an all-in-one server loses the records of this last stretch",
  },
  FERRUM_FUNCTIONS_ROUTE_CACHE_MS: {
    fallback: 5000,
    meaning:
      'how long a controller keeps a route that calls read (0: never); route and app changes and project suspensions are broadcast and apply at once (calls queued for runners are also checked when they start)',
  },
  FERRUM_FUNCTIONS_PORT: {
    shown: 'unset',
    meaning:
      "a second listener (on `HOST`) serving only function calls (`/r/`) and `/health`, so function answers have an origin of their own, apart from the dashboard's (`0`: any free port); the chart's `controller.functions.port` / `servicePort`",
  },
  FERRUM_FUNCTIONS_CLUSTER: {
    fallback: 'default',
    meaning: 'the cluster whose runners take the function calls this controller queues',
  },
  FERRUM_FUNCTIONS_SOCKET_DIR: {
    shown: '`$TMPDIR/ferrum-fn-sockets`',
    meaning:
      "folder for the sockets of `http-stream` containers: the runner makes one folder per container in it and the Docker engine bind-mounts that path, so it must be the same path for both. A runner on the engine's machine needs nothing; a runner in a container mounts a folder of the engine's host at the same path (`-v /srv/fn-sockets:/srv/fn-sockets -e FERRUM_FUNCTIONS_SOCKET_DIR=/srv/fn-sockets`, writable by the runner's user) — the chart does this for `dind` and `hostSocket` (`runner.docker.functionSocketDir`); otherwise an `http-stream` container never gets its listener and the call fails naming this setting",
  },
  FERRUM_FUNCTIONS_HOST: {
    shown: 'unset',
    meaning:
      "a host name (the `Host` header) on which only function calls and `/health` are served, for the same reason (point its DNS at the controller); the chart's `controller.functions.host`",
  },
});

/** Settings of the functions platform (controller and runner sides). */
export interface FunctionsConfig {
  /** The cluster whose runners take the calls this controller queues. */
  cluster: string;
  /** Largest request body of a call, in bytes. */
  bodyLimitBytes: number;
  /** Largest answer body of a call, in bytes; a larger answer is refused (502). */
  maxAnswerBytes: number;
  /** Largest `memory` a route may ask for, in MiB. */
  maxMemoryMb: number;
  /** How long a sync call may wait for a runner to take it, in ms. */
  queueWaitMs: number;
  /** Time allowed beyond a route's timeout for container start and the trip back, in ms. */
  graceMs: number;
  /** How long call records and logs are kept, in ms. */
  callRetentionMs: number;
  /** Most bytes of a call's stderr kept as its log. */
  maxLogBytes: number;
  /** Most calls one runner runs at once. */
  runnerSlots: number;
  /** Most of a runner's slots one project's calls hold at once (the others wait their turn). */
  projectSlots: number;
  /** Host folder (shared with the Docker engine) holding the sockets of `http-stream` containers. */
  socketDir: string;
  /** Longest a call waits for a container of a route whose containers are all busy, in ms; then 503. */
  busyWaitMs: number;
  /** Most calls of one route waiting for a busy container on one runner; more get 503 at once. */
  maxWaitingCalls: number;
  /** Most hot containers the routes of one project keep on one runner at once. */
  maxProjectHotContainers: number;
  /** Longest a runner keeps an idle hot container, whatever its route's idle_timeout, in ms. */
  maxIdleMs: number;
  /** How often finished calls' records and logs are written (in one batch), in ms. */
  recordFlushMs: number;
  /** How long a controller keeps a route calls read; changes are broadcast and apply at once. */
  routeCacheMs: number;
  /**
   * A second listener serving only function calls (/r/), so their answers have an origin of
   * their own, apart from the dashboard's (0: any free port); undefined: none.
   */
  port: number | undefined;
  /** A host name (Host header) on which only function calls are served, for the same reason. */
  host: string | undefined;
}

/** The functions platform's settings. */
export function readFunctionsConfig(env: Env): FunctionsConfig {
  const runnerSlots = Math.max(1, intOf(env, FUNCTIONS_SETTINGS.FERRUM_FUNCTIONS_RUNNER_SLOTS));
  return {
    cluster: textOf(env, FUNCTIONS_SETTINGS.FERRUM_FUNCTIONS_CLUSTER),
    bodyLimitBytes: intOf(env, FUNCTIONS_SETTINGS.FERRUM_FUNCTIONS_BODY_LIMIT),
    maxAnswerBytes: Math.max(0, intOf(env, FUNCTIONS_SETTINGS.FERRUM_FUNCTIONS_MAX_ANSWER_BYTES)),
    maxMemoryMb: Math.max(8, intOf(env, FUNCTIONS_SETTINGS.FERRUM_FUNCTIONS_MAX_MEMORY_MB)),
    queueWaitMs: Math.max(1, intOf(env, FUNCTIONS_SETTINGS.FERRUM_FUNCTIONS_QUEUE_WAIT_MS)),
    graceMs: intOf(env, FUNCTIONS_SETTINGS.FERRUM_FUNCTIONS_GRACE_MS),
    callRetentionMs: Math.max(1000, intOf(env, FUNCTIONS_SETTINGS.FERRUM_FUNCTIONS_CALL_RETENTION_MS)),
    maxLogBytes: intOf(env, FUNCTIONS_SETTINGS.FERRUM_FUNCTIONS_MAX_LOG_BYTES),
    runnerSlots,
    projectSlots: Math.max(1, intFrom(env, 'FERRUM_FUNCTIONS_PROJECT_SLOTS', Math.ceil(runnerSlots / 2))),
    socketDir: env.FERRUM_FUNCTIONS_SOCKET_DIR || path.join(os.tmpdir(), 'ferrum-fn-sockets'),
    busyWaitMs: Math.max(1, intOf(env, FUNCTIONS_SETTINGS.FERRUM_FUNCTIONS_BUSY_WAIT_MS)),
    maxWaitingCalls: Math.max(0, intOf(env, FUNCTIONS_SETTINGS.FERRUM_FUNCTIONS_MAX_WAITING_CALLS)),
    maxProjectHotContainers: Math.max(1, intOf(env, FUNCTIONS_SETTINGS.FERRUM_FUNCTIONS_PROJECT_HOT_CONTAINERS)),
    maxIdleMs: Math.max(1, intOf(env, FUNCTIONS_SETTINGS.FERRUM_FUNCTIONS_MAX_IDLE_SECONDS)) * 1000,
    recordFlushMs: Math.max(1, intOf(env, FUNCTIONS_SETTINGS.FERRUM_FUNCTIONS_RECORD_FLUSH_MS)),
    routeCacheMs: Math.max(0, intOf(env, FUNCTIONS_SETTINGS.FERRUM_FUNCTIONS_ROUTE_CACHE_MS)),
    port: nonEmpty(env.FERRUM_FUNCTIONS_PORT) === undefined ? undefined : intFrom(env, 'FERRUM_FUNCTIONS_PORT', 0),
    host: nonEmpty(env.FERRUM_FUNCTIONS_HOST)?.toLowerCase().replace(/\.$/, ''),
  };
}
