import type { Registry } from 'prom-client';
import type { EventBus } from '../core/bus.js';
import type { ProjectLifecycle } from '../auth/project-lifecycle.js';
import type { Config, FunctionsConfig } from '../core/config.js';
import type { KeySpace, RedisClient } from '../core/redis.js';
import { CallAdmission, type ProjectSource } from './calls/admission.js';
import { CallRecords } from './calls/call-records.js';
import { CallReplies } from './calls/call-replies.js';
import { FunctionCalls, type LocalFunctionHost } from './calls/function-calls.js';
import { FunctionMetrics } from './calls/metrics.js';
import { RouteCache } from './routes/route-cache.js';
import { RouteManagement } from './routes/route-management.js';
import { FunctionAccess, type FunctionAccessSources } from './apps/access.js';
import { AppManagement } from './apps/app-management.js';
import { AppStore } from './apps/app-store.js';
import { CallQueue } from './calls/call-queue.js';
import { ProjectStorage } from '../auth/stored-bytes.js';
import { CallBytes } from './calls/call-bytes.js';
import { CallStore } from './calls/call-store.js';
import { FunctionKeys } from './keys.js';
import { ReplyBodies } from './calls/reply-bodies.js';
import { RouteNotices } from './routes/route-notices.js';
import { RouteStore } from './routes/route-store.js';
import { HotContainerRoom } from './routes/hot-containers.js';
import { RouteIndex } from './routes/route-index.js';

/** The stores of the functions platform over one Redis connection. */
export interface FunctionStores {
  keys: FunctionKeys;
  apps: AppStore;
  routes: RouteStore;
  /** Each project's routes, the count its routes quota bounds (flag `route_index`). */
  routeIndex: RouteIndex;
  /** Each project's hot containers, the count its hot_containers quota bounds. */
  hotContainers: HotContainerRoom;
  calls: CallStore;
  queue: CallQueue;
  /** Every change to apps and routes goes through here (route caches listen). */
  notices: RouteNotices;
  /** How sync calls' answers travel back (bodies too large for pub/sub apart). */
  replyBodies: ReplyBodies;
}

export function openFunctionStores(config: Config, redis: RedisClient, keySpace: KeySpace): FunctionStores {
  const keys = new FunctionKeys(keySpace);
  const notices = new RouteNotices(redis, keys.routesChanged());
  const { callRetentionMs, maxLogBytes } = config.functions;
  const bytes = new CallBytes(redis, keys, new ProjectStorage(redis, keySpace), callRetentionMs);
  const calls = new CallStore(redis, keys, callRetentionMs, maxLogBytes, bytes);
  const apps = new AppStore(redis, keys, notices, calls);
  const routeIndex = new RouteIndex(redis, keys);
  const hotContainers = new HotContainerRoom(redis, keys);
  return {
    keys,
    apps,
    notices,
    routes: new RouteStore(redis, keys, apps, notices, routeIndex, hotContainers),
    routeIndex,
    hotContainers,
    calls,
    queue: new CallQueue(redis, keys),
    replyBodies: new ReplyBodies(redis, keys),
  };
}

/** A controller's functions platform: the stores, and the calls of /r/ over them. */
export interface FunctionServices extends FunctionStores {
  /** Calls of functions: admission, queueing, the wait for sync answers (FunctionCalls.invoke). */
  functionCalls: FunctionCalls;
  /** Subscribes the route cache and this process's reply channel: before any call is served. */
  start(): Promise<void>;
  /** Unsubscribes both; sync calls still waiting end as unanswered. */
  close(): Promise<void>;
}

export interface FunctionServiceOptions {
  config: Config;
  redis: RedisClient;
  keys: KeySpace;
  bus: EventBus;
  /** Where calls' projects (their quotas) are read: the authenticator's cache. */
  projects: ProjectSource;
  registry: Registry;
  /** The all-in-one server's own runner, once started. */
  local: LocalFunctionHost;
}

/** Builds the functions platform once per controller process (the composition root calls it). */
export function openFunctionServices(options: FunctionServiceOptions): FunctionServices {
  const { config, redis, keys, bus } = options;
  const stores = openFunctionStores(config, redis, keys);
  const settings = config.functions;
  const routes = new RouteCache(stores.routes, stores.notices, settings.routeCacheMs);
  const replies = new CallReplies(bus, stores.keys, stores.replyBodies);
  const admission = new CallAdmission(redis, stores.keys, stores.calls, routes, options.projects, config.quotas);
  const metrics = new FunctionMetrics(options.registry);
  const { calls, queue } = stores;
  const functionCalls = new FunctionCalls(admission, calls, queue, replies, metrics, settings, options.local);
  let stopRoutes = async () => {};
  return {
    ...stores,
    functionCalls,
    async start() {
      await replies.start();
      stopRoutes = await routes.start(bus);
    },
    async close() {
      await stopRoutes();
      await replies.close();
    },
  };
}

/** The management API's domain: apps, routes and call records as a principal may see and change them. */
export interface FunctionManagement {
  apps: AppManagement;
  routes: RouteManagement;
  calls: CallRecords;
}

export interface FunctionManagementOptions extends FunctionAccessSources {
  lifecycle: Pick<ProjectLifecycle, 'appCreated'>;
  settings: FunctionsConfig;
}

/** Builds the management domain over the stores (stateless: the composition root builds it once). */
export function openFunctionManagement(stores: FunctionStores, options: FunctionManagementOptions): FunctionManagement {
  const access = new FunctionAccess(options, stores.apps, stores.routeIndex, stores.hotContainers);
  return {
    apps: new AppManagement(stores.apps, access, options.lifecycle),
    routes: new RouteManagement(stores.apps, stores.routes, access, options.lifecycle, options.settings),
    calls: new CallRecords(stores.calls, access),
  };
}
