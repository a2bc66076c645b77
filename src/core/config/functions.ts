import os from 'node:os';
import path from 'node:path';
import { type Env, intFrom, nonEmpty } from './env.js';

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
  const runnerSlots = Math.max(1, intFrom(env, 'FERRUM_FUNCTIONS_RUNNER_SLOTS', 8));
  return {
    cluster: env.FERRUM_FUNCTIONS_CLUSTER || 'default',
    bodyLimitBytes: intFrom(env, 'FERRUM_FUNCTIONS_BODY_LIMIT', 6 * 1024 * 1024),
    maxAnswerBytes: Math.max(0, intFrom(env, 'FERRUM_FUNCTIONS_MAX_ANSWER_BYTES', 6 * 1024 * 1024)),
    maxMemoryMb: Math.max(8, intFrom(env, 'FERRUM_FUNCTIONS_MAX_MEMORY_MB', 4096)),
    queueWaitMs: Math.max(1, intFrom(env, 'FERRUM_FUNCTIONS_QUEUE_WAIT_MS', 30_000)),
    graceMs: intFrom(env, 'FERRUM_FUNCTIONS_GRACE_MS', 30_000),
    callRetentionMs: Math.max(1000, intFrom(env, 'FERRUM_FUNCTIONS_CALL_RETENTION_MS', 7 * 24 * 3_600_000)),
    maxLogBytes: intFrom(env, 'FERRUM_FUNCTIONS_MAX_LOG_BYTES', 1024 * 1024),
    runnerSlots,
    projectSlots: Math.max(1, intFrom(env, 'FERRUM_FUNCTIONS_PROJECT_SLOTS', Math.ceil(runnerSlots / 2))),
    socketDir: env.FERRUM_FUNCTIONS_SOCKET_DIR || path.join(os.tmpdir(), 'ferrum-fn-sockets'),
    busyWaitMs: Math.max(1, intFrom(env, 'FERRUM_FUNCTIONS_BUSY_WAIT_MS', 10_000)),
    maxWaitingCalls: Math.max(0, intFrom(env, 'FERRUM_FUNCTIONS_MAX_WAITING_CALLS', 100)),
    maxProjectHotContainers: Math.max(1, intFrom(env, 'FERRUM_FUNCTIONS_PROJECT_HOT_CONTAINERS', 20)),
    maxIdleMs: Math.max(1, intFrom(env, 'FERRUM_FUNCTIONS_MAX_IDLE_SECONDS', 600)) * 1000,
    recordFlushMs: Math.max(1, intFrom(env, 'FERRUM_FUNCTIONS_RECORD_FLUSH_MS', 20)),
    routeCacheMs: Math.max(0, intFrom(env, 'FERRUM_FUNCTIONS_ROUTE_CACHE_MS', 5000)),
    port: nonEmpty(env.FERRUM_FUNCTIONS_PORT) === undefined ? undefined : intFrom(env, 'FERRUM_FUNCTIONS_PORT', 0),
    host: nonEmpty(env.FERRUM_FUNCTIONS_HOST)?.toLowerCase().replace(/\.$/, ''),
  };
}
