import type { RunnerInstance } from '../../src/worker/clusters/runners/runner-registry.js';
import type { EngineImage } from '../../src/worker/codes/images/private-images.js';
import type { RegistryAuth } from '../../src/worker/codes/images/registry-credentials.js';
import type { TaskOutcome } from '../../src/worker/tasks/running/runner-tasks.js';
import type { CodeRevision, Task, TaskStatus } from '../../src/worker/types.js';

/**
 * What a runner does to a task it took, until the end of its run. Direct runners do it
 * against Redis; gateway runners ask the runner API, which runs the same scripts for them.
 */
export interface TaskBackend {
  /** The code revision the task was queued with; null when it no longer exists. */
  revision(task: Task): Promise<CodeRevision | null>;
  /** The revision's code package (zip), if it has one. */
  codeZip(task: Task, revision: CodeRevision): Promise<Buffer | null>;
  /**
   * How this task may use `image`: with its project's registry credentials (pulled with them, so
   * the registry decides), as it is on the engine, or not at all (another project pulled it with
   * credentials this project lacks). `onEngine`: what the engine holds under `image` now, which
   * is what runs whatever form the reference takes (a name, an id or a prefix of one, a digest).
   */
  imageAccess(task: Task, image: string, onEngine: EngineImage | null): Promise<ImageAccess>;
  /** The image of id `imageId` was pulled for this task with its project's credentials. */
  imagePulled(task: Task, image: string, imageId: string): Promise<void>;
  /** The image of this preparing task is about to be pulled: clients see `preparing` until it starts. */
  pulling(task: Task): Promise<void>;
  /** preparing → running; the container's task token, or null when the task is no longer this runner's. */
  start(task: Task): Promise<string | null>;
  /** Appends output to the task's log; calls never overlap (LogShipper). */
  appendLog(task: Task, chunk: Buffer): Promise<void>;
  /** Ends the task as `outcome` if it is in one of `from` on this runner; whether this call ended it. */
  finish(task: Task, from: TaskStatus[], outcome: TaskOutcome): Promise<boolean>;
  /** The run is over: the task token stops working, the max_concurrency slot is free, the job is done. */
  release(task: Task, taskToken: string | null): Promise<void>;
}

export type ImageAccess =
  { action: 'run' | 'pull'; auth: RegistryAuth | undefined } | { action: 'refuse'; reason: string };

/** What a heartbeat learns: whether the instance is retired, and which held tasks were cancelled. */
export interface HeartbeatAnswer {
  retire: boolean;
  cancelled: string[];
}

export interface TaskHandlers {
  /** Runs a task this runner took (now preparing on it) to its end. */
  run(task: Task): Promise<void>;
  /** A task of this runner was cancelled. */
  cancel(taskId: string): void;
  /** The installation refused this runner for good (its token was revoked): it should stop. */
  refused?(error: Error): void;
  /** The installation no longer knows this runner (its registration lapsed): register it again now. */
  reregister?(): Promise<void>;
}

/** How a runner gets its tasks and reports on itself: straight from Redis, or through the runner API. */
export interface RunnerBackend {
  readonly mode: 'direct' | 'gateway';
  readonly tasks: TaskBackend;
  /** Names the installation in container labels (see removeOrphanContainers), without secrets. */
  readonly storeId: string;
  /** Starts taking tasks: up to `slots` runs at once, by priority, as BullMQ hands them out. */
  startTaking(handlers: TaskHandlers): Promise<void>;
  /** Takes no new task; resolves once every run in progress has returned. */
  stopTaking(): Promise<void>;
  /** Registers or refreshes the instance, keeping the locks and slots of the tasks it runs. */
  heartbeat(instance: RunnerInstance, running: Task[]): Promise<HeartbeatAnswer>;
  /** Whether a runner of this store still heartbeats (to tell its containers from orphans). */
  isAlive(cluster: string, runnerId: string): Promise<boolean>;
  deregister(instance: RunnerInstance): Promise<void>;
  close(): Promise<void>;
}
