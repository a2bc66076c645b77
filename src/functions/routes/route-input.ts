import type { FunctionsConfig } from '../../core/config.js';
import { fail } from '../../core/errors.js';
import type { RouteChanges } from './route-store.js';
import {
  checkConfig,
  checkHeaders,
  checkImage,
  checkMaxConcurrency,
  checkMemory,
  checkRoutePath,
  checkSeconds,
  checkSecret,
  ROUTE_DEFAULTS,
  ROUTE_LIMITS,
} from '../apps/rules.js';
import type { ConfigMap, Route, RouteFormat, RouteType } from '../types.js';

/** The `route` object of a request body, as the schema admits it. */
export interface RouteInput {
  path?: string;
  image?: string;
  memory?: number;
  type?: RouteType;
  format?: RouteFormat;
  timeout?: number;
  idle_timeout?: number;
  max_concurrency?: number;
  headers?: ConfigMap;
  config?: ConfigMap;
  secret?: string;
}

/** The changes a request asks for, each checked against the platform's rules. */
export function routeChangesOf(input: RouteInput, limits: FunctionsConfig): RouteChanges {
  const changes: RouteChanges = {};
  if (input.image !== undefined) checkImage((changes.image = input.image));
  if (input.memory !== undefined) checkMemory((changes.memory = input.memory), limits.maxMemoryMb);
  if (input.type !== undefined) changes.type = input.type;
  if (input.format !== undefined) changes.format = input.format;
  if (input.timeout !== undefined) checkSeconds('timeout', (changes.timeout = input.timeout), ROUTE_LIMITS.maxTimeout);
  if (input.idle_timeout !== undefined)
    checkSeconds('idle_timeout', (changes.idleTimeout = input.idle_timeout), ROUTE_LIMITS.maxIdleTimeout);
  if (input.max_concurrency !== undefined) checkMaxConcurrency((changes.maxConcurrency = input.max_concurrency));
  if (input.headers !== undefined) checkHeaders((changes.headers = input.headers));
  if (input.config !== undefined) checkConfig('route config', (changes.config = input.config));
  if (input.secret !== undefined) checkSecret((changes.secret = input.secret));
  return changes;
}

/** A new route: the request's settings over the defaults; empty config and header values are dropped. */
export function newRouteOf(appName: string, path: string, input: RouteInput, limits: FunctionsConfig): Route {
  checkRoutePath(path);
  if (!input.image) throw fail('fn_route_image_required');
  const changes = routeChangesOf(input, limits);
  const now = Date.now();
  const nonEmpty = (map: ConfigMap | undefined) =>
    Object.fromEntries(Object.entries(map ?? {}).filter(([, value]) => value !== ''));
  return {
    appName,
    path,
    image: input.image,
    memory: changes.memory ?? ROUTE_DEFAULTS.memory,
    type: changes.type ?? ROUTE_DEFAULTS.type,
    format: changes.format ?? ROUTE_DEFAULTS.format,
    timeout: changes.timeout ?? ROUTE_DEFAULTS.timeout,
    idleTimeout: changes.idleTimeout ?? ROUTE_DEFAULTS.idleTimeout,
    maxConcurrency: changes.maxConcurrency ?? ROUTE_DEFAULTS.maxConcurrency,
    headers: nonEmpty(changes.headers),
    config: nonEmpty(changes.config),
    secret: changes.secret || null,
    createdAt: now,
    updatedAt: now,
  };
}

/** The path of an existing route may be repeated in an update, not changed. */
export function checkSamePath(input: RouteInput, path: string): void {
  if (input.path !== undefined && input.path !== path) throw fail('fn_route_path_immutable');
}
