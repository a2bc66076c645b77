import { DEFAULT_STACKS, runtimeStacksFrom, runtimesNamedIn, stacksFrom } from '../worker-stacks.js';
import { type Env, intFrom, nonEmpty } from './env.js';

/** Settings of the worker service's API side (codes, tasks). */
export interface WorkerConfig {
  /** Stack name → the image that runs zip packages naming it. */
  stacks: Record<string, string>;
  /** The stack of zip packages that name neither image, stack nor runtime. */
  defaultStack: string;
  /** Runtime → the stack a zip package naming that runtime and no stack runs on. */
  runtimes: Record<string, string>;
  /** Whether runtime `sh` runs on the stack of the program its script starts (unless the operator pinned `sh`). */
  shellFollowsScript: boolean;
  maxCodeBytes: number;
  /** How many of a code package's newest revisions keep their zip; older archives are deleted. */
  revisionsKept: number;
  /** How long a pull with a project's registry credentials proves its access to the image, in ms. */
  imageProofMs: number;
  /** Limits of a zip package, checked from its central directory and enforced while it is unpacked. */
  zip: ZipLimits;
  maxLogBytes: number;
  /** Key encrypting registry credentials at rest; when unset, a key file in dataDir. */
  secretKey: string | undefined;
  /** How long a finished task (record, log, index entries) is kept, in ms. */
  taskRetentionMs: number;
  /** How often the leader controller drops expired tasks and dispatches unconfirmed ones, in ms (0 = never). */
  taskSweepMs: number;
  /** How long a written task may wait for its BullMQ job before the sweeper adds it, in ms. */
  dispatchGraceMs: number;
}

export interface ZipLimits {
  maxUnpackedBytes: number;
  maxEntries: number;
  /** Largest unpacked/packed size ratio of one entry and of the whole archive. */
  maxRatio: number;
}

/** Settings of the task scheduler. */
export interface ScheduleConfig {
  /** How often the leader controller queues due schedule runs, in ms (0 = never). */
  tickMs: number;
  /** Smallest run_every (and cron spacing) accepted, in seconds: 60, lowered only in test mode. */
  minIntervalSeconds: number;
}

export function readWorkerConfig(env: Env): WorkerConfig {
  const stacks = stacksFrom(env.FERRUM_WORKER_STACKS ?? DEFAULT_STACKS);
  const defaultStack = env.FERRUM_WORKER_DEFAULT_STACK || 'node-20';
  return {
    stacks,
    defaultStack,
    runtimes: runtimeStacksFrom(nonEmpty(env.FERRUM_WORKER_RUNTIMES), stacks, defaultStack),
    shellFollowsScript: !runtimesNamedIn(nonEmpty(env.FERRUM_WORKER_RUNTIMES)).includes('sh'),
    maxCodeBytes: intFrom(env, 'FERRUM_WORKER_MAX_CODE_BYTES', 64 * 1024 * 1024),
    revisionsKept: Math.max(1, intFrom(env, 'FERRUM_WORKER_REVISIONS_KEPT', 10)),
    imageProofMs: intFrom(env, 'FERRUM_WORKER_IMAGE_PROOF_MS', 10 * 60_000),
    zip: {
      maxUnpackedBytes: intFrom(env, 'FERRUM_WORKER_ZIP_MAX_UNPACKED_BYTES', 512 * 1024 * 1024),
      maxEntries: Math.max(1, intFrom(env, 'FERRUM_WORKER_ZIP_MAX_ENTRIES', 10_000)),
      maxRatio: Math.max(1, intFrom(env, 'FERRUM_WORKER_ZIP_MAX_RATIO', 200)),
    },
    maxLogBytes: intFrom(env, 'FERRUM_WORKER_MAX_LOG_BYTES', 8 * 1024 * 1024),
    secretKey: nonEmpty(env.FERRUM_ENCRYPTION_KEY),
    taskRetentionMs: taskRetentionMs(env),
    taskSweepMs: intFrom(env, 'FERRUM_TASK_SWEEP_MS', 60000),
    dispatchGraceMs: intFrom(env, 'FERRUM_TASK_DISPATCH_GRACE_MS', 30000),
  };
}

export function readScheduleConfig(env: Env): ScheduleConfig {
  return {
    tickMs: intFrom(env, 'FERRUM_SCHEDULER_TICK_MS', 1000),
    minIntervalSeconds: scheduleIntervalFloor(env),
  };
}

const SCHEDULE_INTERVAL_FLOOR = 60;

/** FERRUM_TEST_SCHEDULE_MIN_INTERVAL lowers the spec's 60 s floor for tests; production refuses it. */
function scheduleIntervalFloor(env: Env): number {
  if (env.FERRUM_TEST_SCHEDULE_MIN_INTERVAL === undefined || env.FERRUM_TEST_SCHEDULE_MIN_INTERVAL === '')
    return SCHEDULE_INTERVAL_FLOOR;
  if (env.NODE_ENV !== 'test' && env.FERRUM_TEST_MODE !== '1') {
    throw new Error('FERRUM_TEST_SCHEDULE_MIN_INTERVAL is honoured only with NODE_ENV=test or FERRUM_TEST_MODE=1');
  }
  return Math.max(1, intFrom(env, 'FERRUM_TEST_SCHEDULE_MIN_INTERVAL', SCHEDULE_INTERVAL_FLOOR));
}

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * FERRUM_TASK_RETENTION_DAYS (default 30); FERRUM_TEST_TASK_RETENTION_MS replaces it for
 * tests and is refused in production, as FERRUM_TEST_SCHEDULE_MIN_INTERVAL is.
 */
function taskRetentionMs(env: Env): number {
  if (env.FERRUM_TEST_TASK_RETENTION_MS === undefined || env.FERRUM_TEST_TASK_RETENTION_MS === '') {
    return Math.max(1, intFrom(env, 'FERRUM_TASK_RETENTION_DAYS', 30)) * DAY_MS;
  }
  if (env.NODE_ENV !== 'test' && env.FERRUM_TEST_MODE !== '1') {
    throw new Error('FERRUM_TEST_TASK_RETENTION_MS is honoured only with NODE_ENV=test or FERRUM_TEST_MODE=1');
  }
  return Math.max(1, intFrom(env, 'FERRUM_TEST_TASK_RETENTION_MS', 30 * DAY_MS));
}
