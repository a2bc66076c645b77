import type { Config } from '../core/config.js';
import type { KeySpace, RedisClient } from '../core/redis.js';
import { AppStore } from './apps/app-store.js';
import { CallQueue } from './calls/call-queue.js';
import { ProjectStorage } from '../core/stored-bytes.js';
import { CallBytes } from './calls/call-bytes.js';
import { CallStore } from './calls/call-store.js';
import { FunctionKeys } from './keys.js';
import { ReplyBodies } from './calls/reply-bodies.js';
import { RouteNotices } from './routes/route-notices.js';
import { RouteStore } from './routes/route-store.js';

/** The stores of the functions platform over one Redis connection. */
export interface FunctionStores {
  keys: FunctionKeys;
  apps: AppStore;
  routes: RouteStore;
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
  const apps = new AppStore(redis, keys, notices);
  const { callRetentionMs, maxLogBytes } = config.functions;
  const bytes = new CallBytes(redis, keys, new ProjectStorage(redis, keySpace), callRetentionMs);
  return {
    keys,
    apps,
    notices,
    routes: new RouteStore(redis, keys, apps, notices),
    calls: new CallStore(redis, keys, callRetentionMs, maxLogBytes, bytes),
    queue: new CallQueue(redis, keys),
    replyBodies: new ReplyBodies(redis, keys),
  };
}
