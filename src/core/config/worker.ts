import { DEFAULT_RUNTIMES, DEFAULT_STACKS, runtimeStacksFrom, runtimesNamedIn, stacksFrom } from '../worker-stacks.js';
import { type Env, intFrom, nonEmpty } from './env.js';
import { defineSettings, intOf, textOf } from './setting.js';

export const WORKER_SETTINGS = defineSettings({
  FERRUM_WORKER_MAX_CODE_BYTES: {
    fallback: 64 * 1024 * 1024,
    meaning: 'largest code zip (413 above)',
  },
  FERRUM_WORKER_REVISIONS_KEPT: {
    fallback: 10,
    meaning:
      "how many of a code package's newest revisions keep their zip; an upload deletes the zip of the revision that falls out (its record stays; a task pinned to it ends as `error`, its download is 404)",
  },
  FERRUM_WORKER_IMAGE_PROOF_MS: {
    fallback: 10 * 60_000,
    meaning:
      "a project with registry credentials for an image's registry pulls the image with them before running it, at most once in this period (see [How tasks run](tasks-and-functions.md#how-tasks-run))",
  },
  FERRUM_WORKER_ZIP_MAX_UNPACKED_BYTES: {
    fallback: 512 * 1024 * 1024,
    meaning:
      "largest total unpacked size of a code zip (400 above; checked from the zip's directory at upload and again while a runner unpacks it)",
  },
  FERRUM_WORKER_ZIP_MAX_ENTRIES: {
    fallback: 10_000,
    meaning: 'most entries in a code zip (400 above)',
  },
  FERRUM_WORKER_ZIP_MAX_RATIO: {
    fallback: 200,
    meaning: 'largest unpacked/packed ratio of a zip and of each entry over 1 MiB (400 above)',
  },
  FERRUM_WORKER_MAX_LOG_BYTES: {
    fallback: 8 * 1024 * 1024,
    meaning: 'largest task log; later output is dropped with a notice',
  },
  FERRUM_TASK_SWEEP_MS: {
    fallback: 60000,
    meaning:
      'how often the leader controller drops expired tasks, dispatches tasks whose queue job was never added and ends runs no runner runs any more (`0` = off)',
  },
  FERRUM_TASK_DISPATCH_GRACE_MS: {
    fallback: 30000,
    meaning:
      "how long a written task may wait for its queue job before the sweeper adds it (repairs a crash between the two steps), and how long a preparing or running task must be unchanged before the sweeper ends it as `error` when its runner stopped heartbeating or its runner's heartbeats no longer list it (its last write was lost, e.g. in a Redis failover)",
  },
  FERRUM_SCHEDULER_TICK_MS: {
    fallback: 1000,
    meaning: 'how often the leader controller queues due schedule runs (`0` = never)',
  },
  FERRUM_TEST_SCHEDULE_MIN_INTERVAL: {
    shown: 'unset (60)',
    meaning:
      '**tests only**: lowers the 60 s floor of `run_every` and cron spacing; refused unless `NODE_ENV=test` or `FERRUM_TEST_MODE=1`',
  },
  FERRUM_TASK_RETENTION_DAYS: {
    fallback: 30,
    meaning:
      'how long finished tasks (record, log, list and stats entries) are kept; queued and running tasks never expire',
  },
  FERRUM_TEST_TASK_RETENTION_MS: {
    shown: 'unset',
    meaning: '**tests only**: retention in ms; refused unless `NODE_ENV=test` or `FERRUM_TEST_MODE=1`',
  },
  FERRUM_WORKER_DEFAULT_STACK: {
    fallback: 'node-20',
    meaning: 'stack of zip packages that name neither `image`, `stack` nor `runtime`',
  },
  FERRUM_WORKER_STACKS: {
    fallback: DEFAULT_STACKS,
    shown:
      '`node-20=node:20-alpine,python-3.12=python:3.12-alpine,…` (see [Stacks](tasks-and-functions.md#stacks-old-style-zip-packages))',
    meaning: '`stack=image` pairs for zip packages; listed by `GET /2/stacks`',
  },
  FERRUM_WORKER_RUNTIMES: {
    fallback: DEFAULT_RUNTIMES,
    meaning:
      '`runtime=stack` pairs: the stack a zip package naming that `runtime` and no `stack` runs on; the runtimes uploads may name (another is 400). A `sh` package runs on the stack of the runtime its script starts (see [Stacks](tasks-and-functions.md#stacks-old-style-zip-packages)) unless this variable names `sh`. Set, it must name stacks of `FERRUM_WORKER_STACKS`; unset, a runtime whose stack is not configured runs on the default stack',
  },
  FERRUM_ENCRYPTION_KEY: {
    shown: 'key file `<FERRUM_DATA_DIR>/secret.key`',
    meaning:
      'encrypts secrets at rest (registry credentials, cluster cloud credentials); set the same value on every controller and runner',
  },
  FERRUM_TEST_MODE: {
    shown: 'unset',
    meaning: '`1` allows test-only settings; never set it in production',
  },
});

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
  const stacks = stacksFrom(env.FERRUM_WORKER_STACKS ?? WORKER_SETTINGS.FERRUM_WORKER_STACKS.fallback);
  const defaultStack = textOf(env, WORKER_SETTINGS.FERRUM_WORKER_DEFAULT_STACK);
  return {
    stacks,
    defaultStack,
    runtimes: runtimeStacksFrom(nonEmpty(env.FERRUM_WORKER_RUNTIMES), stacks, defaultStack),
    shellFollowsScript: !runtimesNamedIn(nonEmpty(env.FERRUM_WORKER_RUNTIMES)).includes('sh'),
    maxCodeBytes: intOf(env, WORKER_SETTINGS.FERRUM_WORKER_MAX_CODE_BYTES),
    revisionsKept: Math.max(1, intOf(env, WORKER_SETTINGS.FERRUM_WORKER_REVISIONS_KEPT)),
    imageProofMs: intOf(env, WORKER_SETTINGS.FERRUM_WORKER_IMAGE_PROOF_MS),
    zip: {
      maxUnpackedBytes: intOf(env, WORKER_SETTINGS.FERRUM_WORKER_ZIP_MAX_UNPACKED_BYTES),
      maxEntries: Math.max(1, intOf(env, WORKER_SETTINGS.FERRUM_WORKER_ZIP_MAX_ENTRIES)),
      maxRatio: Math.max(1, intOf(env, WORKER_SETTINGS.FERRUM_WORKER_ZIP_MAX_RATIO)),
    },
    maxLogBytes: intOf(env, WORKER_SETTINGS.FERRUM_WORKER_MAX_LOG_BYTES),
    secretKey: nonEmpty(env.FERRUM_ENCRYPTION_KEY),
    taskRetentionMs: taskRetentionMs(env),
    taskSweepMs: intOf(env, WORKER_SETTINGS.FERRUM_TASK_SWEEP_MS),
    dispatchGraceMs: intOf(env, WORKER_SETTINGS.FERRUM_TASK_DISPATCH_GRACE_MS),
  };
}

export function readScheduleConfig(env: Env): ScheduleConfig {
  return {
    tickMs: intOf(env, WORKER_SETTINGS.FERRUM_SCHEDULER_TICK_MS),
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
    return Math.max(1, intOf(env, WORKER_SETTINGS.FERRUM_TASK_RETENTION_DAYS)) * DAY_MS;
  }
  if (env.NODE_ENV !== 'test' && env.FERRUM_TEST_MODE !== '1') {
    throw new Error('FERRUM_TEST_TASK_RETENTION_MS is honoured only with NODE_ENV=test or FERRUM_TEST_MODE=1');
  }
  return Math.max(1, intFrom(env, 'FERRUM_TEST_TASK_RETENTION_MS', 1));
}
