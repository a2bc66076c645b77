import type { FastifyBaseLogger } from 'fastify';
import type { Authenticator } from '../src/auth/authenticator.js';
import type { IdentityStores } from '../src/auth/identity.js';
import type { IdentityServices } from '../src/auth/services.js';
import type { LoginGuard } from '../src/auth/login-guard.js';
import type { ProjectLifecycle } from '../src/auth/project-lifecycle.js';
import type { CacheStore } from '../src/cache/cache-store.js';
import type { EventBus } from '../src/core/bus.js';
import type { Config } from '../src/core/config.js';
import type { FeatureAdmin } from '../src/core/features/feature-admin.js';
import type { StorageFeatures } from '../src/core/features/storage-features.js';
import type { KeySpace, RedisClient } from '../src/core/redis.js';
import type { LocalFunctionHost } from '../src/functions/calls/function-calls.js';
import type { FunctionManagement, FunctionServices } from '../src/functions/services.js';
import type { ActivityHistory } from '../src/metrics/history.js';
import type { Metrics } from '../src/metrics/registry.js';
import type { MessageQueue } from '../src/mq/message-queue.js';
import type { WorkerServices } from '../src/worker/services.js';
import type { WorkerUpkeep } from '../src/worker/upkeep.js';
import type { HttpDrain } from './http-drain.js';
import type { GatewaySession } from '../src/worker/tasks/running/gateway-session.js';
import type { HeldTasks } from '../src/worker/tasks/running/held-tasks.js';
import type { ProjectBudget } from '../src/core/project-budget.js';

/**
 * A controller process's shared connections and services, built once by the composition root
 * (controller/app-context.ts) and given to every API plugin and background loop; nothing builds
 * its own copy.
 */
export interface AppContext {
  config: Config;
  log: FastifyBaseLogger;
  redis: RedisClient;
  redisUrl: string;
  keys: KeySpace;
  bus: EventBus;
  /** The storage feature flags as this process holds them (decided before anything else wrote). */
  features: StorageFeatures;
  /** What operators see and do with the flags (the admin API). */
  featureAdmin: FeatureAdmin;
  /** Users, tokens and projects (one store each). */
  identity: IdentityStores;
  /** The identity API's operations (users, tokens, projects, sign-in) over those stores. */
  accounts: IdentityServices;
  authenticator: Authenticator;
  loginGuard: LoginGuard;
  metrics: Metrics;
  /** The message queue service (both API versions, the push deliverer, the samplers). */
  mq: MessageQueue;
  /** The worker service's stores and services, over the one BullMQ connection. */
  worker: WorkerServices;
  /** The worker's background work on controllers (the scheduler's and the task sweeper's passes). */
  workerUpkeep: WorkerUpkeep;
  /** The functions platform's stores and the calls of /r/. */
  functions: FunctionServices;
  /** The functions management API's domain: apps, routes and call records as a principal may see them. */
  functionManagement: FunctionManagement;
  /** The cache service's items (the cache API and the cache sweeper). */
  cache: CacheStore;
  /** Per-project activity for the dashboard's charts (the history API and sampler). */
  history: ActivityHistory;
  /** The tasks gateway runners hold, with the BullMQ Workers the runner API takes their jobs with. */
  heldTasks: HeldTasks;
  /** What the runner API does for a gateway runner: its long-poll for a task, its heartbeat, its leaving. */
  gatewaySession: GatewaySession;
  /** Suspension and deletion of projects as the other services see them. */
  lifecycle: ProjectLifecycle;
  /** The runner of the all-in-one server, which may take hot function calls without the queue. */
  localFunctions: LocalFunctionHost;
  /** Set once the process is stopping: /ready answers 503 while requests are still served. */
  httpDrain: HttpDrain;
  /** Each project's byte rate on this process, spent by its large bodies and its background work (push hops). */
  budget: ProjectBudget;
}

/** What every API plugin is given: the process's shared connections and services. */
export interface PluginOptions {
  ctx: AppContext;
}
