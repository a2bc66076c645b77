import { projectCountersKey } from '../auth/project-counters.js';
import type { KeySpace } from '../core/redis.js';
import { TASK_STATUSES, type TaskStatus } from './types.js';

/**
 * Key names of the worker service. Every key of one project shares the hash tag
 * {w:<project>} so a script may touch a code, its tasks and their indexes together.
 */
export class WorkerKeys {
  constructor(private readonly keys: KeySpace) {}

  private project(projectId: string, ...parts: string[]): string {
    return this.keys.of(`{w:${projectId}}`, ...parts);
  }

  /** The project's usage counters shown by the identity service (outside the project's hash tag). */
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
  taskIndex(projectId: string) {
    return this.project(projectId, 'tasks');
  }
  tasksOfCode(projectId: string, codeName: string) {
    return this.project(projectId, 'tasks', 'code', codeName);
  }
  tasksWithStatus(projectId: string, status: TaskStatus) {
    return this.project(projectId, 'tasks', 'status', status);
  }
  /** One index per status, in TASK_STATUSES order (the status scripts rely on it). */
  statusIndexes(projectId: string): string[] {
    return TASK_STATUSES.map((status) => this.tasksWithStatus(projectId, status));
  }
  /** Tasks of one code package (by id) whose status is `status`, scored by last change (ms): stats. */
  codeTasksWithStatus(projectId: string, codeId: string, status: TaskStatus) {
    return this.project(projectId, 'code', codeId, 'status', status);
  }
  /** One per status, in TASK_STATUSES order, as statusIndexes. */
  codeStatusIndexes(projectId: string, codeId: string): string[] {
    return TASK_STATUSES.map((status) => this.codeTasksWithStatus(projectId, codeId, status));
  }
  registryAuth(projectId: string) {
    return this.project(projectId, 'registry-auth');
  }

  /** Runner liveness: exists while the runner heartbeats. */
  runnerAlive(cluster: string, runnerId: string) {
    return this.keys.of(`{wc:${cluster}}`, 'runner', runnerId);
  }
  /** Hash runner id → JSON of the instance (slots, busy, times) for one cluster. */
  clusterInstances(cluster: string) {
    return this.keys.of(`{wc:${cluster}}`, 'instances');
  }
  /** A task token's grant, by the token's SHA-256. */
  taskToken(digest: string) {
    return this.keys.of('w', 'task-token', digest);
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
