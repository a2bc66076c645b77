import type { Redis } from 'ioredis';
import type { Authenticator } from '../src/auth/authenticator.js';
import type { IdentityStore } from '../src/auth/identity-store.js';
import type { EventBus } from '../src/core/bus.js';
import type { Config } from '../src/core/config.js';
import type { KeySpace } from '../src/core/redis.js';
import type { Metrics } from '../src/metrics/registry.js';
import type { LocalFunctionHost } from '../src/functions/function-calls.js';

/** What every API plugin is given: the process's shared connections and services. */
export interface AppContext {
  config: Config;
  redis: Redis;
  redisUrl: string;
  keys: KeySpace;
  bus: EventBus;
  identity: IdentityStore;
  authenticator: Authenticator;
  metrics: Metrics;
  /** The runner of the all-in-one server, which may take hot function calls without the queue. */
  localFunctions: LocalFunctionHost;
}

export interface PluginOptions {
  ctx: AppContext;
}
