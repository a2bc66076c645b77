import os from 'node:os';
import path from 'node:path';
import type { Quotas } from '../auth/quotas.js';
import { VERSION } from './version.js';
import { DEFAULT_STACKS, runtimeStacksFrom, stacksFrom } from './worker-stacks.js';

/** Every setting Ferrum reads from the environment; README's configuration table mirrors this. */
export interface Config {
  port: number;
  host: string;
  /** When undefined, the all-in-one process starts a managed redis-server. */
  redisUrl: string | undefined;
  keyPrefix: string;
  dataDir: string;
  redis: RedisConfig;
  /**
   * How long SIGTERM/SIGINT may take before the process exits anyway, in ms; undefined: the
   * role's own default (see shutdownTimeoutMs()).
   */
  shutdownTimeoutMs: number | undefined;
  /**
   * On SIGTERM, how long a controller keeps serving with /ready answering 503 (so load
   * balancers take it out) before it stops accepting connections, in ms.
   */
  httpDrainMs: number;
  bodyLimitBytes: number;
  /** Bodies of at least `thresholdBytes` are read `perProject` at a time per project (0: no bound). */
  largeBodies: { thresholdBytes: number; perProject: number; bytesPerSecond: number };
  tokenCacheMs: number;
  logLevel: string;
  /** Log every request and response (pino, info level); off by default because it costs throughput. */
  logRequests: boolean;
  publicScheme: string;
  publicHost: string | undefined;
  worker: WorkerConfig;
  schedules: ScheduleConfig;
  runner: RunnerConfig;
  functions: FunctionsConfig;
  aws: AwsConfig;
  autoscaler: AutoscalerConfig;
  clusters: ClusterPolicyConfig;
  cache: {
    /** Largest item value accepted by the cache service, in bytes. */
    maxValueBytes: number;
    /** How often the cache sweeper reclaims expired items. */
    sweepIntervalMs: number;
  };
  /** How often the leader queues again the tasks of projects whose suspension ended and purges deleted projects (0 = never). */
  projectJanitorMs: number;
  /** How often the leader samples every project's queue depth for the dashboard's charts; 0 = never. */
  historySampleMs: number;
  metrics: {
    /** How often the leader samples gauges that read Redis (queue depth, tasks by state), in ms; 0 = never. */
    sampleMs: number;
    /** How many of the deepest queues (over all projects) ferrum_mq_queue_depth_messages reports. */
    topQueues: number;
    /** How often each process pings its Redis connection for ferrum_redis_round_trip_seconds, in ms; 0 = never. */
    redisPingMs: number;
    /** Label series with project ids, queue names and tenant cluster ids (off: no tenant appears in /metrics). */
    tenantLabels: boolean;
  };
  mq: {
    /** Largest body of a message post (v1, v3 and webhooks), which carries up to 100 messages; in bytes. */
    postBodyLimitBytes: number;
    /** Smallest reservation timeout (message_timeout, reserve and touch timeout) accepted, in seconds. */
    minTimeoutSeconds: number;
    /** Most messages one post request may carry (v1, v3); more is a 400. */
    maxPostMessages: number;
    /** How often the leader controller drops expired messages of idle queues, in ms (0 = never). */
    sweepIntervalMs: number;
    push: {
      /** Most push deliveries (HTTP requests) in flight at once; 0 turns push delivery off on this controller. */
      concurrency: number;
      /** Most messages of one push queue in delivery at once. */
      queueConcurrency: number;
      /** Per-delivery request timeout, in ms. */
      timeoutMs: number;
      /** Leader lease of the push deliverer, in ms (a dead leader is replaced after this long). */
      leaseMs: number;
      /** How long a message's push status stays readable once its delivery is over, in ms. */
      statusRetentionMs: number;
    };
  };
  /** Dashboard sign-in limits (POST /1/authentication), counted in Redis. */
  login: { perAccount: number; perAddress: number; windowMs: number; maxDelayMs: number };
  /** How many projects and API tokens a user may have through non-admin requests. */
  tenantLimits: { projectsPerUser: number; tokensPerUser: number };
  /** Each project's quotas unless an admin set its own (see src/auth/quotas.ts). */
  quotas: Quotas;
  /**
   * Where the server may connect for a tenant (push subscribers, alerts, webhooks): loopback,
   * link-local, private and unique-local addresses are refused unless these CIDRs or host
   * names allow them.
   */
  outboundAllow: string[];
  bootstrap: {
    token: string | undefined;
    projectId: string | undefined;
    email: string | undefined;
    password: string | undefined;
  };
}

/** How Ferrum uses its Redis, and how it runs the managed one. */
export interface RedisConfig {
  /** How long a request's Redis command may take before it fails (and the request answers 503), in ms. */
  commandTimeoutMs: number;
  /** How long a starting process waits for Redis before giving up, in ms. */
  connectTimeoutMs: number;
  /** appendfsync of the managed redis-server: always, everysec or no. */
  appendfsync: 'always' | 'everysec' | 'no';
  /** How many times in a row the managed redis-server may fail to come back before the process exits. */
  restartAttempts: number;
  /** maxmemory of the managed redis-server in bytes (policy noeviction); 0 = no limit. */
  maxmemoryBytes: number;
}

/** Settings of the worker service's API side (codes, tasks). */
export interface WorkerConfig {
  /** Stack name → the image that runs zip packages naming it. */
  stacks: Record<string, string>;
  /** The stack of zip packages that name neither image, stack nor runtime. */
  defaultStack: string;
  /** Runtime → the stack a zip package naming that runtime and no stack runs on. */
  runtimes: Record<string, string>;
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

/** Settings of the cluster autoscaler (a leader-elected loop on the controllers). */
export interface AutoscalerConfig {
  /** How often the leader scales clusters and moves instances along ADD → LIVE → KILL → TERMINATE (0 = never). */
  intervalMs: number;
  /** Weight of the newest demand figure in the cluster's ewma (0 < alpha <= 1). */
  ewmaAlpha: number;
  /** Least time between two scaling actions on one cluster. */
  cooldownMs: number;
  /** An instance whose runner has not registered this long after launch is retired. */
  bootTimeoutMs: number;
  /** How long TERMINATE instance records stay visible in stats. */
  terminatedRetentionMs: number;
  /** The Ferrum image the docker provider runs runner containers from. */
  dockerImage: string;
  /** The Docker socket mounted into runner containers (the engine their tasks run on). */
  dockerSocket: string;
  /** The API URL launched runners (gateway mode) reach; the controller's own listening URL when unset. */
  runnerApiUrl: string | undefined;
  /** Most instances one pass launches for one cluster. */
  maxLaunchPerCluster: number;
  /** Most instances one pass launches over all clusters. */
  maxLaunchPerPass: number;
}

/** What tenants (non-admin tokens) may ask of clusters; admins are not bound by it. */
export interface ClusterPolicyConfig {
  /** Providers tenants may choose: `static` always; `docker` and `aws` start machines or containers, so only when listed. */
  tenantProviders: string[];
  /** Largest runners_min and runners_max a tenant's cluster may have. */
  tenantMaxRunners: number;
  /** How many clusters one tenant (a user who is not an admin) may own. */
  tenantMaxClusters: number;
  /** How many runner tokens the API creates for one cluster (the autoscaler's per-instance tokens aside). */
  maxRunnerTokens: number;
}

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

/** Settings of the AWS instance provider of the cluster autoscaler. */
export interface AwsConfig {
  /**
   * The tag on every EC2 instance this installation launches; only instances carrying it are
   * ever terminated. Undefined: `ferrum:owner=<this installation's id>`.
   */
  ownerTag: { key: string; value: string } | undefined;
  /** An EC2 API endpoint instead of the region's own (a private endpoint, a local emulator). */
  endpoint: string | undefined;
  /** The Ferrum image instances run as `ferrum runner` with the default user_data. */
  runnerImage: string;
  /** How long a launch waits for its instance to run before associating an Elastic IP, in seconds. */
  eipWaitSeconds: number;
}

type Env = Record<string, string | undefined>;

/** A standalone runner's default metrics port: not the controller's 8080, so both fit on one machine. */
export const RUNNER_METRICS_PORT = 8081;

function intFrom(env: Env, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0) {
    throw new Error(`${name} must be a non-negative integer, got "${raw}"`);
  }
  return value;
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

/** FERRUM_AWS_OWNER_TAG is "key=value"; the value may be empty, the key may not. */
function ownerTagFrom(raw: string | undefined): AwsConfig['ownerTag'] {
  if (raw === undefined || raw === '') return undefined;
  const at = raw.indexOf('=');
  if (at <= 0) throw new Error(`FERRUM_AWS_OWNER_TAG must be key=value, got "${raw}"`);
  return { key: raw.slice(0, at), value: raw.slice(at + 1) };
}

function fractionFrom(env: Env, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!(value > 0 && value <= 1)) throw new Error(`${name} must be a number in (0, 1], got "${raw}"`);
  return value;
}

function listFrom(raw: string | undefined): string[] {
  return (raw ?? '')
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean);
}

const CLUSTER_PROVIDERS = ['static', 'docker', 'aws'];

/** FERRUM_CLUSTER_TENANT_PROVIDERS: a comma-separated list of providers; `static` is always in. */
function tenantProvidersFrom(raw: string | undefined): string[] {
  const listed = listFrom(raw);
  for (const name of listed) {
    if (!CLUSTER_PROVIDERS.includes(name))
      throw new Error(
        `FERRUM_CLUSTER_TENANT_PROVIDERS entries must be one of ${CLUSTER_PROVIDERS.join(', ')}, got "${name}"`,
      );
  }
  return [...new Set(['static', ...listed])];
}

function oneOf<T extends string>(env: Env, name: string, allowed: readonly T[], fallback: T): T {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!(allowed as readonly string[]).includes(raw)) {
    throw new Error(`${name} must be one of ${allowed.join(', ')}, got "${raw}"`);
  }
  return raw as T;
}

/**
 * REDIS_URL as the connection spec createRedisClient takes: the URL itself (standalone),
 * `redis-sentinel://host:port,…/<master>` built from FERRUM_REDIS_SENTINELS (or REDIS_URL's
 * comma-separated addresses) and FERRUM_REDIS_SENTINEL_MASTER, or
 * `redis-cluster://[user:password@]host:port,…` for a Redis Cluster's seed nodes.
 */
function redisUrlFrom(env: Env): string | undefined {
  const mode = oneOf(env, 'FERRUM_REDIS_MODE', ['standalone', 'sentinel', 'cluster'] as const, 'standalone');
  if (mode === 'standalone') return nonEmpty(env.REDIS_URL);
  if (mode === 'cluster') return clusterUrlFrom(env);
  const sentinels = nonEmpty(env.FERRUM_REDIS_SENTINELS);
  const raw = sentinels ?? nonEmpty(env.REDIS_URL);
  if (!raw) throw new Error('FERRUM_REDIS_MODE=sentinel needs FERRUM_REDIS_SENTINELS (host:port,host:port)');
  const { credentials, nodes } = seedListOf(raw, sentinels ? 'FERRUM_REDIS_SENTINELS' : 'REDIS_URL');
  const master = env.FERRUM_REDIS_SENTINEL_MASTER || 'mymaster';
  return `redis-sentinel://${credentials}${nodes.join(',')}/${encodeURIComponent(master)}`;
}

/**
 * FERRUM_REDIS_MODE=cluster: REDIS_URL names one or more seed nodes, comma-separated, each
 * `host:port` or `redis://[user:password@]host:port` (credentials are taken from the first that has them).
 */
function clusterUrlFrom(env: Env): string {
  const raw = nonEmpty(env.REDIS_URL);
  if (!raw) throw new Error('FERRUM_REDIS_MODE=cluster needs REDIS_URL naming seed nodes (host:port,host:port)');
  const { credentials, nodes } = seedListOf(raw, 'REDIS_URL');
  return `redis-cluster://${credentials}${nodes.join(',')}`;
}

/** `host:port` entries of a comma-separated list, and the `user:password@` of the first entry that has them. */
function seedListOf(raw: string, setting: string): { credentials: string; nodes: string[] } {
  let credentials = '';
  const nodes = raw.split(',').map((entry) => {
    const text = entry.trim();
    const url = new URL(/^[a-z]+:\/\//.test(text) ? text : `redis://${text}`);
    if (url.protocol === 'rediss:') {
      throw new Error(
        `${setting} entry "${text}": TLS (rediss://) is supported only with FERRUM_REDIS_MODE=standalone; use redis:// entries for sentinel and cluster`,
      );
    }
    if (url.protocol !== 'redis:') throw new Error(`${setting} entry "${text}": only redis:// entries are supported`);
    if (!url.hostname || !url.port) throw new Error(`${setting} entry "${text}" must be host:port`);
    if (!credentials && url.password) credentials = `${url.username}:${url.password}@`;
    return `${url.hostname}:${url.port}`;
  });
  return { credentials, nodes };
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
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

const MIB = 1024 * 1024;

/** Half of the machine's memory: room for Redis's own overhead, the controller and the runner. */
function defaultMaxmemoryMb(): number {
  return Math.max(64, Math.floor(os.totalmem() / MIB / 2));
}

/** The functions platform's settings. */
function functionsConfigOf(env: Env): FunctionsConfig {
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

export function loadConfig(env: Env = process.env): Config {
  const stacks = stacksFrom(env.FERRUM_WORKER_STACKS ?? DEFAULT_STACKS);
  const defaultStack = env.FERRUM_WORKER_DEFAULT_STACK || 'node-20';
  return {
    port: intFrom(env, 'PORT', 8080),
    host: env.HOST || '127.0.0.1',
    redisUrl: redisUrlFrom(env),
    keyPrefix: env.FERRUM_KEY_PREFIX || 'ferrum:',
    dataDir: path.resolve(env.FERRUM_DATA_DIR || './.ferrum'),
    redis: {
      commandTimeoutMs: Math.max(10, intFrom(env, 'FERRUM_REDIS_COMMAND_TIMEOUT_MS', 1000)),
      connectTimeoutMs: Math.max(100, intFrom(env, 'FERRUM_REDIS_CONNECT_TIMEOUT_MS', 30_000)),
      appendfsync: oneOf(env, 'FERRUM_REDIS_APPENDFSYNC', ['always', 'everysec', 'no'] as const, 'everysec'),
      restartAttempts: Math.max(1, intFrom(env, 'FERRUM_REDIS_RESTART_ATTEMPTS', 5)),
      maxmemoryBytes: Math.max(0, intFrom(env, 'FERRUM_REDIS_MAXMEMORY_MB', defaultMaxmemoryMb())) * MIB,
    },
    shutdownTimeoutMs: env.FERRUM_SHUTDOWN_TIMEOUT_MS
      ? Math.max(1000, intFrom(env, 'FERRUM_SHUTDOWN_TIMEOUT_MS', 0))
      : undefined,
    httpDrainMs: Math.max(0, intFrom(env, 'FERRUM_HTTP_DRAIN_MS', 5000)),
    bodyLimitBytes: intFrom(env, 'FERRUM_BODY_LIMIT', 64 * 1024),
    largeBodies: {
      thresholdBytes: Math.max(1, intFrom(env, 'FERRUM_LARGE_BODY_BYTES', 256 * 1024)),
      perProject: Math.max(0, intFrom(env, 'FERRUM_LARGE_BODIES_PER_PROJECT', 2)),
      bytesPerSecond: Math.max(0, intFrom(env, 'FERRUM_LARGE_BODY_BYTES_PER_SECOND', 32 * 1024 * 1024)),
    },
    tokenCacheMs: intFrom(env, 'FERRUM_TOKEN_CACHE_MS', 5000),
    logLevel: env.LOG_LEVEL || 'info',
    logRequests: env.FERRUM_LOG_REQUESTS === '1',
    publicScheme: env.FERRUM_PUBLIC_SCHEME || 'http',
    publicHost: nonEmpty(env.FERRUM_PUBLIC_HOST),
    worker: {
      stacks,
      defaultStack,
      runtimes: runtimeStacksFrom(nonEmpty(env.FERRUM_WORKER_RUNTIMES), stacks, defaultStack),
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
    },
    schedules: {
      tickMs: intFrom(env, 'FERRUM_SCHEDULER_TICK_MS', 1000),
      minIntervalSeconds: scheduleIntervalFloor(env),
    },
    runner: {
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
    },
    functions: functionsConfigOf(env),
    aws: {
      ownerTag: ownerTagFrom(env.FERRUM_AWS_OWNER_TAG),
      endpoint: nonEmpty(env.FERRUM_AWS_ENDPOINT),
      runnerImage: env.FERRUM_AWS_RUNNER_IMAGE || `ferrum:${VERSION}`,
      eipWaitSeconds: Math.max(1, intFrom(env, 'FERRUM_AWS_EIP_WAIT_SECONDS', 300)),
    },
    autoscaler: {
      intervalMs: intFrom(env, 'FERRUM_AUTOSCALER_INTERVAL_MS', 10_000),
      ewmaAlpha: fractionFrom(env, 'FERRUM_AUTOSCALER_EWMA_ALPHA', 0.3),
      cooldownMs: intFrom(env, 'FERRUM_AUTOSCALER_COOLDOWN_MS', 60_000),
      bootTimeoutMs: Math.max(1000, intFrom(env, 'FERRUM_AUTOSCALER_BOOT_TIMEOUT_MS', 300_000)),
      terminatedRetentionMs: intFrom(env, 'FERRUM_AUTOSCALER_TERMINATED_RETENTION_MS', 3_600_000),
      dockerImage: env.FERRUM_AUTOSCALER_DOCKER_IMAGE || 'ferrum',
      dockerSocket: env.FERRUM_AUTOSCALER_DOCKER_SOCKET || '/var/run/docker.sock',
      runnerApiUrl: nonEmpty(env.FERRUM_AUTOSCALER_RUNNER_API_URL),
      maxLaunchPerCluster: Math.max(1, intFrom(env, 'FERRUM_AUTOSCALER_MAX_LAUNCH_PER_CLUSTER', 5)),
      maxLaunchPerPass: Math.max(1, intFrom(env, 'FERRUM_AUTOSCALER_MAX_LAUNCH_PER_PASS', 20)),
    },
    clusters: {
      tenantProviders: tenantProvidersFrom(env.FERRUM_CLUSTER_TENANT_PROVIDERS),
      tenantMaxRunners: intFrom(env, 'FERRUM_CLUSTER_TENANT_MAX_RUNNERS', 20),
      tenantMaxClusters: intFrom(env, 'FERRUM_CLUSTER_TENANT_MAX_CLUSTERS', 50),
      maxRunnerTokens: intFrom(env, 'FERRUM_CLUSTER_MAX_RUNNER_TOKENS', 100),
    },
    cache: {
      maxValueBytes: intFrom(env, 'FERRUM_CACHE_MAX_VALUE_BYTES', 1024 * 1024),
      sweepIntervalMs: intFrom(env, 'FERRUM_CACHE_SWEEP_MS', 1000),
    },
    historySampleMs: intFrom(env, 'FERRUM_HISTORY_SAMPLE_MS', 60_000),
    projectJanitorMs: intFrom(env, 'FERRUM_PROJECT_JANITOR_MS', 5000),
    metrics: {
      sampleMs: intFrom(env, 'FERRUM_METRICS_SAMPLE_MS', 15_000),
      topQueues: Math.max(0, intFrom(env, 'FERRUM_METRICS_TOP_QUEUES', 10)),
      redisPingMs: intFrom(env, 'FERRUM_METRICS_REDIS_PING_MS', 5000),
      tenantLabels: env.FERRUM_METRICS_TENANT_LABELS === '1',
    },
    mq: {
      postBodyLimitBytes: intFrom(env, 'FERRUM_MQ_POST_BODY_LIMIT', 6 * 1024 * 1024),
      minTimeoutSeconds: Math.max(1, intFrom(env, 'FERRUM_MQ_MIN_TIMEOUT', 30)),
      maxPostMessages: Math.max(1, intFrom(env, 'FERRUM_MQ_MAX_POST_MESSAGES', 1000)),
      sweepIntervalMs: intFrom(env, 'FERRUM_MQ_SWEEP_MS', 60_000),
      push: {
        concurrency: intFrom(env, 'FERRUM_MQ_PUSH_CONCURRENCY', 256),
        queueConcurrency: Math.max(1, intFrom(env, 'FERRUM_MQ_PUSH_QUEUE_CONCURRENCY', 64)),
        timeoutMs: Math.max(1, intFrom(env, 'FERRUM_MQ_PUSH_TIMEOUT_MS', 10_000)),
        leaseMs: Math.max(300, intFrom(env, 'FERRUM_MQ_PUSH_LEASE_MS', 10_000)),
        statusRetentionMs: Math.max(1, intFrom(env, 'FERRUM_MQ_PUSH_STATUS_RETENTION_MS', 3_600_000)),
      },
    },
    login: {
      perAccount: Math.max(1, intFrom(env, 'FERRUM_LOGIN_MAX_PER_ACCOUNT', 10)),
      perAddress: Math.max(1, intFrom(env, 'FERRUM_LOGIN_MAX_PER_ADDRESS', 100)),
      windowMs: Math.max(1000, intFrom(env, 'FERRUM_LOGIN_WINDOW_MS', 15 * 60_000)),
      maxDelayMs: Math.max(0, intFrom(env, 'FERRUM_LOGIN_MAX_DELAY_MS', 5000)),
    },
    tenantLimits: {
      projectsPerUser: Math.max(1, intFrom(env, 'FERRUM_MAX_PROJECTS_PER_USER', 100)),
      tokensPerUser: Math.max(1, intFrom(env, 'FERRUM_MAX_TOKENS_PER_USER', 100)),
    },
    quotas: {
      stored_bytes: Math.max(0, intFrom(env, 'FERRUM_PROJECT_MAX_STORED_BYTES', 256 * MIB)),
      queue_bytes: Math.max(0, intFrom(env, 'FERRUM_PROJECT_MAX_QUEUE_BYTES', 64 * MIB)),
      queues: Math.max(0, intFrom(env, 'FERRUM_PROJECT_MAX_QUEUES', 1000)),
      caches: Math.max(0, intFrom(env, 'FERRUM_PROJECT_MAX_CACHES', 1000)),
      apps: Math.max(0, intFrom(env, 'FERRUM_PROJECT_MAX_APPS', 50)),
      routes: Math.max(0, intFrom(env, 'FERRUM_PROJECT_MAX_ROUTES', 500)),
      hot_containers: Math.max(0, intFrom(env, 'FERRUM_PROJECT_MAX_HOT_CONTAINERS', 200)),
      queued_calls: Math.max(0, intFrom(env, 'FERRUM_PROJECT_MAX_QUEUED_CALLS', 10_000)),
    },
    outboundAllow: listFrom(env.FERRUM_OUTBOUND_ALLOW),
    bootstrap: {
      token: nonEmpty(env.FERRUM_BOOTSTRAP_TOKEN),
      projectId: nonEmpty(env.FERRUM_BOOTSTRAP_PROJECT_ID),
      email: nonEmpty(env.FERRUM_BOOTSTRAP_EMAIL),
      password: nonEmpty(env.FERRUM_BOOTSTRAP_PASSWORD),
    },
  };
}
