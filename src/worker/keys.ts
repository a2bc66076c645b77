import { projectCountersKey } from '../auth/project-counters.js';
import { storedBytesKey } from '../auth/stored-bytes-keys.js';
import type { KeySpace } from '../core/redis.js';
import { TASK_STATUSES, type Task, type TaskStatus } from './types.js';

/** What places a task in its indexes; none of it changes during the task's life. */
export type IndexedTask = Pick<Task, 'code_id' | 'code_name' | 'cluster'>;

/** Which tasks a list index holds: those of one code name, cluster and status, each optional. */
export interface ListScope {
  codeName?: string;
  cluster?: string;
  status?: TaskStatus;
}

/**
 * Key names of the worker service. Every key of one project shares the hash tag
 * {w:<project>} so a script may touch a code, its tasks and their indexes together.
 */
export class WorkerKeys {
  constructor(private readonly keys: KeySpace) {}

  private project(projectId: string, ...parts: string[]): string {
    return this.keys.of(`{w:${projectId}}`, ...parts);
  }

  /** The project's usage counters shown by the identity service (kept by the task scripts). */
  projectCounters(projectId: string) {
    return projectCountersKey(this.keys, projectId);
  }

  codeNames(projectId: string) {
    return this.project(projectId, 'code-names');
  }
  codeIndex(projectId: string) {
    return this.project(projectId, 'codes');
  }
  code(projectId: string, codeId: string) {
    return this.project(projectId, 'code', codeId);
  }
  revisions(projectId: string, codeId: string) {
    return this.project(projectId, 'code', codeId, 'revisions');
  }
  /** Zset of the package's running task ids, scored by their slot lease's expiry (ms). */
  concurrencyGate(projectId: string, codeId: string) {
    return this.project(projectId, 'code', codeId, 'running');
  }
  /** Exists while the package's task queue is paused. */
  codePaused(projectId: string, codeId: string) {
    return this.project(projectId, 'code', codeId, 'paused');
  }
  /** Zset of task ids a runner set aside while the queue was paused, scored by created_at. */
  parkedTasks(projectId: string, codeId: string) {
    return this.project(projectId, 'code', codeId, 'parked');
  }
  blob(projectId: string, name: string) {
    return this.project(projectId, 'blob', name);
  }
  task(projectId: string, taskId: string) {
    return this.project(projectId, 'task', taskId);
  }
  taskLog(projectId: string, taskId: string) {
    return this.project(projectId, 'task', taskId, 'log');
  }
  /**
   * The list index of a project's tasks with the given status and code name and cluster (each
   * optional), scored by created_at. Every combination exists, so any list filter reads
   * straight from one index per status it asks for (a list of every status, from all seven).
   */
  taskListIndex(projectId: string, scope: ListScope = {}) {
    const parts = ['tasks'];
    // Encoded so a code name holding ':' cannot reach another scope's key.
    if (scope.codeName !== undefined) parts.push('code', encodeURIComponent(scope.codeName));
    if (scope.cluster !== undefined) parts.push('cluster', scope.cluster);
    if (scope.status !== undefined) parts.push('status', scope.status);
    return this.project(projectId, ...parts);
  }
  tasksWithStatus(projectId: string, status: TaskStatus) {
    return this.taskListIndex(projectId, { status });
  }
  /** One per status, in TASK_STATUSES order: the project's tasks by status. */
  statusIndexes(projectId: string): string[] {
    return TASK_STATUSES.map((status) => this.tasksWithStatus(projectId, status));
  }
  /**
   * The all-status list indexes earlier versions wrote (task-lib.lua's ANY group): nothing
   * writes or reads them now; expiry still removes a task from them, so old tasks leave no entry.
   */
  anyStatusIndexes(projectId: string, task: IndexedTask): string[] {
    const { code_name: codeName, cluster } = task;
    return [{}, { codeName }, { cluster }, { codeName, cluster }].map((scope) => this.taskListIndex(projectId, scope));
  }
  /** The indexes a task is in while it has `status` (task-lib.lua's status GROUP). */
  statusGroup(projectId: string, task: IndexedTask, status: TaskStatus): string[] {
    const { code_name: codeName, cluster } = task;
    const lists = [{ status }, { codeName, status }, { cluster, status }, { codeName, cluster, status }].map((scope) =>
      this.taskListIndex(projectId, scope),
    );
    return [...lists, this.codeTasksWithStatus(projectId, task.code_id, status)];
  }
  /** Every status group of a task, in TASK_STATUSES order. */
  statusGroups(projectId: string, task: IndexedTask): string[] {
    return TASK_STATUSES.flatMap((status) => this.statusGroup(projectId, task, status));
  }
  /** Finished tasks' expiry entries ("<id>/<status>/<code id>/<cluster>/<code name>"), scored by expiry ms. */
  expiringTasks(projectId: string) {
    return this.project(projectId, 'tasks', 'expiring');
  }
  /** Ids of created tasks whose BullMQ job may not exist yet, scored by when they were written (ms). */
  undispatchedTasks(projectId: string) {
    return this.project(projectId, 'tasks', 'undispatched');
  }
  /** Tasks of one code package (by id) whose status is `status`, scored by last change (ms): stats. */
  codeTasksWithStatus(projectId: string, codeId: string, status: TaskStatus) {
    return this.project(projectId, 'code', codeId, 'status', status);
  }
  /** One per status, in TASK_STATUSES order. */
  codeStatusIndexes(projectId: string, codeId: string): string[] {
    return TASK_STATUSES.map((status) => this.codeTasksWithStatus(projectId, codeId, status));
  }
  /** Hash task id → payload bytes of the project's queued tasks (their queued_tasks count; task-lib.lua). */
  queuedPayloads(projectId: string) {
    return this.project(projectId, 'tasks', 'queued-payloads');
  }
  /** The sum of queuedPayloads' values: the queued tasks' share of the project's stored_bytes. */
  queuedPayloadTotal(projectId: string) {
    return storedBytesKey(this.keys, 'tasks', projectId);
  }
  /** Exists while the project (or its owner) is suspended: runners set its tasks aside (take-task.lua). */
  projectSuspended(projectId: string) {
    return this.project(projectId, 'suspended');
  }
  registryAuth(projectId: string) {
    return this.project(projectId, 'registry-auth');
  }
  /** Projects that pulled an image with registry credentials (field) and when (value, ms). */
  privateImage(image: string) {
    return this.keys.of('{images}', 'private', image);
  }

  /** Runner liveness: exists while the runner heartbeats. */
  runnerAlive(cluster: string, runnerId: string) {
    return this.keys.of(`{wc:${cluster}}`, 'runner', runnerId);
  }
  /** Hash runner id → JSON of the instance (slots, busy, times) for one cluster. */
  clusterInstances(cluster: string) {
    return this.keys.of(`{wc:${cluster}}`, 'instances');
  }
  /** A user-made cluster's record (configuration JSON and sealed secrets). */
  cluster(clusterId: string) {
    return this.keys.of('{clusters}', 'cluster', clusterId);
  }
  /** Set of the ids of every user-made cluster. */
  clusterIndex() {
    return this.keys.of('{clusters}', 'all');
  }
  /** Set of the ids of the clusters a user owns or has shared to it (what it lists). */
  userClusters(userId: string) {
    return this.keys.of('{clusters}', 'user', userId);
  }
  /** Set of the clusters shared to an e-mail address no user had yet. */
  clusterInvitations(email: string) {
    return this.keys.of('{clusters}', 'invitations', email);
  }
  /** Exists once every cluster is in its users' indexes (an earlier version kept none). */
  userClustersIndexed() {
    return this.keys.of('{clusters}', 'users-indexed');
  }
  /** Hash instance id → JSON of the autoscaler's instance record (type ADD/LIVE/KILL/TERMINATE). */
  clusterMachines(cluster: string) {
    return this.keys.of(`{wc:${cluster}}`, 'machines');
  }
  /** Hash of the autoscaler's figures for one cluster: ewma, last scaling time. */
  clusterScaling(cluster: string) {
    return this.keys.of(`{wc:${cluster}}`, 'scaling');
  }
  /** A task token's grant, by the token's SHA-256. */
  taskToken(digest: string) {
    return this.keys.of('w', 'task-token', digest);
  }
  /** Hash token id → JSON of a cluster's runner token (digest, instance, created_at); no secrets. */
  runnerTokens(cluster: string) {
    return this.keys.of(`{wc:${cluster}}`, 'runner-tokens');
  }
  /** A runner token's grant (cluster, token id, instance), by the token's SHA-256. */
  runnerToken(digest: string) {
    return this.keys.of('w', 'runner-token', digest);
  }
  /** Hash task id → JSON lease of the tasks a gateway runner holds (its BullMQ job and lock token). */
  gatewayLeases(cluster: string, runnerId: string) {
    return this.keys.of(`{wc:${cluster}}`, 'gateway-leases', runnerId);
  }
  /** Set of every cluster tasks were ever queued to (bounded by the number of clusters; for metrics). */
  clusters() {
    return this.keys.of('w', 'clusters');
  }
  /** Pub/sub channel carrying the ids of cancelled tasks. */
  cancelChannel() {
    return this.keys.of('w', 'cancel');
  }
  /** BullMQ prefix: the queue of cluster c lives under <prefix>tasks:<c>. */
  bullPrefix() {
    return this.keys.of('tasks');
  }
}
