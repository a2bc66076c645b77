import { ActivityHistory } from '../metrics/history.js';
import type { EventBus } from '../core/bus.js';
import type { Config } from '../core/config.js';
import type { StateLogger } from '../core/failure-log.js';
import { createRedisClient, failFast, type KeySpace, type RedisClient } from '../core/redis.js';
import { ProjectStorage } from '../auth/stored-bytes.js';
import { ClusterAccess } from './clusters/cluster-access.js';
import { ClusterService, type UserLookup } from './clusters/cluster-service.js';
import { ClusterStatus } from './clusters/instances/cluster-status.js';
import { ClusterStore } from './clusters/cluster-store.js';
import { ClusterTermination } from './clusters/instances/cluster-termination.js';
import { CodeService } from './codes/code-service.js';
import { CodeStore } from './codes/code-store.js';
import { ScheduleKeys } from './schedules/scripts.js';
import { ScheduleStore } from './schedules/schedule-store.js';
import { ScheduleService } from './schedules/schedule-service.js';
import { ConcurrencyGate } from './tasks/running/concurrency-gate.js';
import { TaskDistribution } from './tasks/queues/distribution.js';
import { WorkerKeys } from './keys.js';
import { InstanceStore } from './clusters/instances/instance-store.js';
import { RedisBlobStore } from './codes/archives/redis-blobs.js';
import { PrivateImages } from './codes/images/private-images.js';
import { RegistryCredentials } from './codes/images/registry-credentials.js';
import { RunnerRegistry } from './clusters/runners/runner-registry.js';
import { RunnerTokens } from './clusters/runners/runner-tokens.js';
import { SecretBox } from '../core/secret-box.js';
import { resolveSecretKey } from '../core/secret-key.js';
import { ScalingStates } from './clusters/instances/scaling-state.js';
import { TaskQueuePause } from './tasks/queues/task-queue-pause.js';
import { TaskStats } from './tasks/records/task-stats.js';
import { TaskTokens } from './tasks/running/task-tokens.js';
import { TaskStatusChanges } from './tasks/records/task-status.js';
import { TaskStore } from './tasks/records/task-store.js';
import { TaskService } from './tasks/task-service.js';
import { QueuedTaskRoom, type ProjectQuotas } from './tasks/queued-room.js';
import { RunnerTasks } from './tasks/running/runner-tasks.js';
import { GatewayLeases } from './tasks/running/gateway-leases.js';

/**
 * The worker service's stores and services, shared by its API and its runners. The API's routes
 * each make one call to one of the four front doors: `tasks`, `codeService`, `schedules`,
 * `clusterService`.
 */
export interface WorkerServices {
  /** The front door of the task routes (and what runners, the scheduler and the sweeper queue through). */
  tasks: TaskService;
  /** The front door of the code package routes. */
  codeService: CodeService;
  /** The front door of the schedule routes. */
  schedules: ScheduleService;
  /** The front door of the cluster routes. */
  clusterService: ClusterService;
  scheduleStore: ScheduleStore;
  keys: WorkerKeys;
  codes: CodeStore;
  taskStore: TaskStore;
  statuses: TaskStatusChanges;
  gate: ConcurrencyGate;
  stats: TaskStats;
  pause: TaskQueuePause;
  taskTokens: TaskTokens;
  distribution: TaskDistribution;
  credentials: RegistryCredentials;
  privateImages: PrivateImages;
  runners: RunnerRegistry;
  runnerTokens: RunnerTokens;
  /** What a runner does to the tasks it takes, whether it reaches Redis itself or through the runner API. */
  runnerTasks: RunnerTasks;
  gatewayLeases: GatewayLeases;
  clusters: ClusterStore;
  clusterAccess: ClusterAccess;
  instances: InstanceStore;
  scaling: ScalingStates;
  clusterStatus: ClusterStatus;
  termination: ClusterTermination;
  close(): Promise<void>;
}

export interface WorkerDeps {
  config: Config;
  redis: RedisClient;
  redisUrl: string;
  keys: KeySpace;
  bus: EventBus;
  /** Finds the users a cluster is shared to; left out by processes that serve no cluster routes (runners). */
  users?: UserLookup;
  /** The project's quotas in force, which queueing a task reserves under. */
  projectQuotas: ProjectQuotas;
  /** Told of every error of the connections opened here, by kind (ferrum_redis_errors_total). */
  onRedisError?: (kind: string) => void;
  /** Where the connections opened here report being lost and back (the process's logger). */
  log?: StateLogger;
}

/** The users a process without the identity service knows: none. */
const NO_USERS: UserLookup = { getUser: async () => null, findUserByEmail: async () => null };

export function openWorkerServices(deps: WorkerDeps): WorkerServices {
  const { config, redis, redisUrl, keys, onRedisError, log } = deps;
  const workerKeys = new WorkerKeys(keys);
  // Queues tasks for requests: fails fast while Redis is unreachable, as the request connection does.
  const bullConnection = createRedisClient(redisUrl, 'worker-queues', {
    ...failFast(config.redis.commandTimeoutMs),
    enableAutoPipelining: false,
    ...(onRedisError ? { onError: onRedisError } : {}),
    ...(log ? { log } : {}),
  });
  const storage = new ProjectStorage(redis, keys);
  const codes = new CodeStore(redis, workerKeys, new RedisBlobStore(redis), storage, config.worker.revisionsKept);
  const distribution = new TaskDistribution(bullConnection, workerKeys);
  const secrets = new SecretBox(() => resolveSecretKey(config));
  const clusterParts = openClusterParts(deps, workerKeys, secrets, distribution);
  const taskParts = openTaskParts(deps, workerKeys, { codes, storage, distribution, ...clusterParts });
  const { pause, stats, tasks, taskStore } = taskParts;
  const scheduleStore = new ScheduleStore(redis, new ScheduleKeys(keys));
  return {
    ...clusterParts,
    ...taskParts,
    codeService: new CodeService({ store: codes, pause, stats, tasks, uploads: config.worker }),
    schedules: new ScheduleService(
      codes,
      scheduleStore,
      clusterParts.clusterAccess,
      config.schedules.minIntervalSeconds,
    ),
    scheduleStore,
    keys: workerKeys,
    codes,
    taskStore,
    credentials: new RegistryCredentials(redis, workerKeys, secrets),
    privateImages: new PrivateImages(redis, workerKeys, config.worker.imageProofMs),
    async close() {
      await distribution.close();
      bullConnection.disconnect();
    },
  };
}

type ClusterParts = Pick<
  WorkerServices,
  | 'clusterService'
  | 'clusters'
  | 'clusterAccess'
  | 'instances'
  | 'scaling'
  | 'clusterStatus'
  | 'termination'
  | 'runners'
  | 'runnerTokens'
>;

/** Clusters, their runners and instances, and the cluster routes' front door. */
function openClusterParts(
  { config, redis, users }: WorkerDeps,
  workerKeys: WorkerKeys,
  secrets: SecretBox,
  distribution: TaskDistribution,
): ClusterParts {
  const runners = new RunnerRegistry(redis, workerKeys);
  const clusters = new ClusterStore(redis, workerKeys, secrets);
  const instances = new InstanceStore(redis, workerKeys);
  const scaling = new ScalingStates(redis, workerKeys);
  const clusterAccess = new ClusterAccess(clusters);
  const runnerTokens = new RunnerTokens(redis, workerKeys);
  const clusterStatus = new ClusterStatus(instances, runners, distribution, scaling);
  const termination = new ClusterTermination(instances, runners);
  const clusterService = new ClusterService({
    clusters,
    access: clusterAccess,
    instances,
    status: clusterStatus,
    termination,
    runners,
    runnerTokens,
    users: users ?? NO_USERS,
    policy: config.clusters,
  });
  return {
    clusterService,
    clusters,
    clusterAccess,
    instances,
    scaling,
    clusterStatus,
    termination,
    runners,
    runnerTokens,
  };
}

type TaskParts = Pick<
  WorkerServices,
  | 'tasks'
  | 'taskStore'
  | 'statuses'
  | 'gate'
  | 'stats'
  | 'pause'
  | 'taskTokens'
  | 'distribution'
  | 'runnerTasks'
  | 'gatewayLeases'
>;

/** Task records, their queueing and running, and the task routes' front door. */
function openTaskParts(
  { redis, keys, bus, config, projectQuotas }: WorkerDeps,
  workerKeys: WorkerKeys,
  parts: Pick<WorkerServices, 'codes' | 'distribution' | 'clusterAccess' | 'runners'> & { storage: ProjectStorage },
): TaskParts {
  const { codes, storage, distribution, clusterAccess, runners } = parts;
  const store = new TaskStore(redis, workerKeys);
  const history = new ActivityHistory(redis, keys);
  const statuses = new TaskStatusChanges(redis, workerKeys, config.worker.taskRetentionMs, history);
  const gate = new ConcurrencyGate(redis, workerKeys);
  const taskTokens = new TaskTokens(redis, workerKeys);
  const room = new QueuedTaskRoom(storage, projectQuotas);
  const service = new TaskService({ codes, store, statuses, distribution, clusterAccess, bus, keys: workerKeys, room });
  return {
    tasks: service,
    taskStore: store,
    statuses,
    gate,
    stats: new TaskStats(redis, workerKeys),
    pause: new TaskQueuePause(redis, workerKeys, store, distribution),
    taskTokens,
    distribution,
    runnerTasks: new RunnerTasks({ tasks: store, statuses, gate, taskTokens, service, runners }),
    gatewayLeases: new GatewayLeases(redis, workerKeys),
  };
}
