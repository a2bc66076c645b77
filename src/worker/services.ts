import type { Redis } from 'ioredis';
import { ActivityHistory } from '../metrics/history.js';
import type { EventBus } from '../core/bus.js';
import type { Config } from '../core/config.js';
import { createRedisClient, type KeySpace } from '../core/redis.js';
import { ClusterAccess } from './clusters/cluster-access.js';
import { ClusterStatus } from './clusters/cluster-status.js';
import { ClusterStore } from './clusters/cluster-store.js';
import { ClusterTermination } from './clusters/cluster-termination.js';
import { CodeStore } from './codes/code-store.js';
import { ConcurrencyGate } from './tasks/concurrency-gate.js';
import { TaskDistribution } from './tasks/distribution.js';
import { WorkerKeys } from './keys.js';
import { InstanceStore } from './clusters/instance-store.js';
import { RedisBlobStore } from './codes/redis-blobs.js';
import { PrivateImages } from './codes/private-images.js';
import { RegistryCredentials } from './codes/registry-credentials.js';
import { RunnerRegistry } from './clusters/runner-registry.js';
import { SecretBox } from '../core/secret-box.js';
import { resolveSecretKey } from '../core/secret-key.js';
import { ScalingStates } from './clusters/scaling-state.js';
import { TaskQueuePause } from './tasks/task-queue-pause.js';
import { TaskStats } from './tasks/task-stats.js';
import { TaskTokens } from './tasks/task-tokens.js';
import { TaskStatusChanges } from './tasks/task-status.js';
import { TaskStore } from './tasks/task-store.js';
import { TaskService } from './tasks/tasks.js';

/** The worker service's stores and services, shared by its API and its runners. */
export interface WorkerServices {
  keys: WorkerKeys;
  codes: CodeStore;
  taskStore: TaskStore;
  statuses: TaskStatusChanges;
  gate: ConcurrencyGate;
  stats: TaskStats;
  pause: TaskQueuePause;
  taskTokens: TaskTokens;
  tasks: TaskService;
  distribution: TaskDistribution;
  credentials: RegistryCredentials;
  privateImages: PrivateImages;
  runners: RunnerRegistry;
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
  redis: Redis;
  redisUrl: string;
  keys: KeySpace;
  bus: EventBus;
}

export function openWorkerServices({ config, redis, redisUrl, keys, bus }: WorkerDeps): WorkerServices {
  const workerKeys = new WorkerKeys(keys);
  // BullMQ wants a connection that retries forever rather than failing commands.
  const bullConnection = createRedisClient(redisUrl, 'worker-queues', {
    maxRetriesPerRequest: null,
    enableAutoPipelining: false,
  });
  const codes = new CodeStore(redis, workerKeys, new RedisBlobStore(redis));
  const tasks = new TaskStore(redis, workerKeys);
  const statuses = new TaskStatusChanges(
    redis,
    workerKeys,
    config.worker.taskRetentionMs,
    new ActivityHistory(redis, keys),
  );
  const distribution = new TaskDistribution(bullConnection, workerKeys);
  const secrets = new SecretBox(() => resolveSecretKey(config));
  const runners = new RunnerRegistry(redis, workerKeys);
  const clusters = new ClusterStore(redis, workerKeys, secrets);
  const instances = new InstanceStore(redis, workerKeys);
  const scaling = new ScalingStates(redis, workerKeys);
  return {
    keys: workerKeys,
    codes,
    taskStore: tasks,
    statuses,
    gate: new ConcurrencyGate(redis, workerKeys),
    stats: new TaskStats(redis, workerKeys),
    pause: new TaskQueuePause(redis, workerKeys, tasks, distribution),
    taskTokens: new TaskTokens(redis, workerKeys),
    tasks: new TaskService(codes, tasks, statuses, distribution, bus, workerKeys),
    distribution,
    credentials: new RegistryCredentials(redis, workerKeys, secrets),
    privateImages: new PrivateImages(redis, workerKeys, config.worker.imageProofMs),
    runners,
    clusters,
    clusterAccess: new ClusterAccess(clusters),
    instances,
    scaling,
    clusterStatus: new ClusterStatus(instances, runners, distribution, scaling),
    termination: new ClusterTermination(instances, runners),
    async close() {
      await distribution.close();
      bullConnection.disconnect();
    },
  };
}
