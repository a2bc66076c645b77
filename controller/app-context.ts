import type { FastifyBaseLogger } from 'fastify';
import type { AppContext } from '../api/context.js';
import { HttpDrain } from '../api/http-drain.js';
import { GatewayJobs } from '../src/worker/tasks/running/gateway-jobs.js';
import { GatewaySession } from '../src/worker/tasks/running/gateway-session.js';
import { HeldTasks } from '../src/worker/tasks/running/held-tasks.js';
import { Authenticator } from '../src/auth/authenticator.js';
import { openIdentityStores } from '../src/auth/identity.js';
import { openIdentityServices } from '../src/auth/services.js';
import { LoginGuard } from '../src/auth/login-guard.js';
import { ProjectLifecycle } from '../src/auth/project-lifecycle.js';
import { CacheStore } from '../src/cache/cache-store.js';
import { EventBus } from '../src/core/bus.js';
import { FeatureAdmin } from '../src/core/features/feature-admin.js';
import { StorageFeatures } from '../src/core/features/storage-features.js';
import { newProcessId } from '../src/core/features/process-id.js';
import type { Config } from '../src/core/config.js';
import { projectBudgetOf, type ProjectBudget } from '../src/core/project-budget.js';
import { createRedisClient, failFast, KeySpace, SUBSCRIBER_OPTIONS, waitForRedis } from '../src/core/redis.js';
import { openFunctionManagement, openFunctionServices } from '../src/functions/services.js';
import type { LocalFunctionHost } from '../src/functions/calls/function-calls.js';
import { ActivityHistory } from '../src/metrics/history.js';
import { createMetrics, type MetricsScrape } from '../src/metrics/registry.js';
import { MessageQueue } from '../src/mq/message-queue.js';
import { queueQuotasFrom } from '../src/mq/queues/queue-quotas.js';
import { projectQuotasFrom } from '../src/auth/quotas.js';
import type { ProjectStore } from '../src/auth/projects.js';
import { openWorkerServices, type WorkerServices } from '../src/worker/services.js';
import { openWorkerUpkeep } from '../src/worker/upkeep.js';
import { CloseStack } from './close-stack.js';

export interface OpenedContext {
  ctx: AppContext;
  /** Closes everything opened, last first; safe to call twice. */
  close(): Promise<void>;
}

/**
 * The composition root: opens the Redis connections and builds every service one controller
 * process shares across requests and loops, in one place and in dependency order; `close()`
 * closes them in the reverse order.
 */
export async function openAppContext(
  config: Config,
  redisUrl: string,
  log: FastifyBaseLogger,
  metricsScrape?: MetricsScrape,
): Promise<OpenedContext> {
  const opened = new CloseStack();
  const metrics = createMetrics(metricsScrape);
  const onError = (kind: string) => metrics.redisErrors.inc({ kind });
  const redis = opened.opened(
    createRedisClient(redisUrl, 'commands', { ...failFast(config.redis.commandTimeoutMs), onError, log }),
    (client) => client.disconnect(),
  );
  const subscriber = createRedisClient(redisUrl, 'subscriber', { ...SUBSCRIBER_OPTIONS, onError, log });
  // The bus owns the subscriber connection (closing the bus disconnects it).
  const bus = opened.opened(new EventBus(subscriber, redis), (eventBus) => eventBus.close());
  try {
    await waitForRedis(redis, config.redis.connectTimeoutMs);
  } catch (error) {
    await opened.close();
    throw new Error(`Redis at ${redisUrl} is unreachable: ${(error as Error).message}`);
  }
  try {
    const keys = new KeySpace(config.keyPrefix);
    // Before anything writes: a first start decides the flags; an unknown enabled flag refuses the start.
    const features = opened.opened(
      await StorageFeatures.open({
        redis,
        keys,
        bus,
        id: newProcessId('controller'),
        kind: 'controller',
        onUnknown: (error) => log.error({ err: error }, 'unknown storage feature flag enabled'),
      }),
      (flags) => flags.close(),
    );
    const connections = { config, log, redis, redisUrl, keys, bus, features, metrics, onError };
    return { ctx: await buildServices(connections, opened), close: () => opened.close() };
  } catch (error) {
    await opened.close();
    throw error;
  }
}

type Connections = Pick<
  AppContext,
  'config' | 'log' | 'redis' | 'redisUrl' | 'keys' | 'bus' | 'features' | 'metrics'
> & {
  onError: (kind: string) => void;
};

/** Every shared service, over the connections; those that hold connections or timers are recorded in `opened`. */
async function buildServices(connections: Connections, opened: CloseStack): Promise<AppContext> {
  const { onError: _onError, ...shared } = connections;
  const { config, log, redis, keys, bus, metrics } = shared;
  const identity = openIdentityStores(redis, keys);
  const worker = openWorker(connections, identity, opened);
  // Task tokens (given to each running task) are accepted by every project-scoped API.
  const authenticator = new Authenticator(identity, bus, keys, config.tokenCacheMs, worker.taskTokens);
  const budget = projectBudgetOf(config.largeBodies);
  const mq = opened.opened(openMessageQueue(shared, identity.projects, budget), (queue) => queue.close());
  const { functions, localFunctions } = openFunctions(shared, authenticator, opened);
  const gateway = openGateway(connections, worker, opened);
  const { accounts, loginGuard, lifecycle } = openAccounts(shared, identity, authenticator, worker, functions);
  // The management API's domain over the functions' stores (stateless).
  const functionManagement = openFunctionManagement(functions, {
    authenticator,
    projects: identity.projects,
    quotaDefaults: config.quotas,
    features: shared.features,
    lifecycle,
    settings: config.functions,
  });
  // The scheduler's and the task sweeper's passes, which their leader loops run.
  const workerUpkeep = openWorkerUpkeep(worker, {
    config,
    redis,
    registry: metrics.registry,
    listProjectIds: (after, count) => identity.projects.listProjectIds(after, count),
    log,
  });
  await authenticator.start();
  await functions.start();
  return {
    ...shared,
    ...gateway,
    identity,
    accounts,
    authenticator,
    loginGuard,
    mq,
    worker,
    workerUpkeep,
    functions,
    functionManagement,
    cache: new CacheStore(redis, keys, budget),
    history: new ActivityHistory(redis, keys),
    lifecycle,
    localFunctions,
    httpDrain: new HttpDrain(config.httpDrainMs),
    budget,
    featureAdmin: new FeatureAdmin(shared.features.store, () => shared.features.announce()),
  };
}

type Shared = Omit<Connections, 'onError'>;
type IdentityStores = ReturnType<typeof openIdentityStores>;

/** The worker service's stores and services (tasks, codes, schedules, clusters). */
function openWorker(
  { config, log, redis, redisUrl, keys, bus, onError }: Connections,
  identity: IdentityStores,
  opened: CloseStack,
): WorkerServices {
  const services = openWorkerServices({
    config,
    redis,
    redisUrl,
    keys,
    bus,
    users: identity.users,
    projectQuotas: projectQuotasFrom(identity.projects, config.quotas),
    onRedisError: onError,
    log,
  });
  return opened.opened(services, (w) => w.close());
}

/**
 * The functions platform: its stores, then the services over them (src/functions/services.ts),
 * recorded with opened.opened(service, close) when they hold connections or timers.
 */
function openFunctions({ config, redis, keys, bus, metrics }: Shared, projects: Authenticator, opened: CloseStack) {
  const localFunctions: LocalFunctionHost = { runner: null };
  const functions = opened.opened(
    openFunctionServices({ config, redis, keys, bus, projects, registry: metrics.registry, local: localFunctions }),
    (services) => services.close(),
  );
  return { functions, localFunctions };
}

/** The runner API's side: BullMQ Workers that take jobs by hand for gateway runners, the leases they hold. */
function openGateway(
  { config, redisUrl, log, features, onError }: Connections,
  worker: WorkerServices,
  opened: CloseStack,
) {
  const gatewayJobs = opened.opened(new GatewayJobs(config, redisUrl, worker.keys, log, onError), (jobs) =>
    jobs.close(),
  );
  const heldTasks = new HeldTasks(worker, gatewayJobs, config.runner.lockMs);
  const gatewaySession = new GatewaySession(worker, heldTasks, gatewayJobs, features.store, config.runner);
  return { heldTasks, gatewaySession };
}

/** Identity's services: users, tokens and projects, sign-in and its guard, a project's lifecycle. */
function openAccounts(
  { config, redis, keys }: Shared,
  identity: IdentityStores,
  authenticator: Authenticator,
  worker: WorkerServices,
  functions: ReturnType<typeof openFunctionServices>,
) {
  const loginGuard = new LoginGuard(redis, keys, config.login);
  const lifecycle = new ProjectLifecycle(redis, keys, functions.notices);
  const accounts = openIdentityServices({
    redis,
    keys,
    stores: identity,
    authenticator,
    lifecycle,
    loginGuard,
    invitations: [worker.clusters],
    limits: { quotas: config.quotas, ...config.tenantLimits },
  });
  return { accounts, loginGuard, lifecycle };
}

/**
 * The message queue service of both API versions, with its expiry sweeper (started by its
 * loop); the messages it produces itself pass each project's quotas, read from `projects`.
 */
function openMessageQueue(
  { config, redis, keys, bus, log, metrics, features }: Omit<Connections, 'onError'>,
  projects: ProjectStore,
  budget: ProjectBudget,
): MessageQueue {
  return new MessageQueue({
    budget,
    redis,
    keys,
    bus,
    log,
    features,
    sweepIntervalMs: config.mq.sweepIntervalMs,
    registry: metrics.registry,
    pushStatusRetentionMs: config.mq.push.statusRetentionMs,
    maxPostMessages: config.mq.maxPostMessages,
    minTimeoutSeconds: config.mq.minTimeoutSeconds,
    projectQuotas: async (projectId) => queueQuotasFrom(await projectQuotasFrom(projects, config.quotas)(projectId)),
  });
}
