import type { App, ConfigMap, Route, RouteFormat, RouteType } from '../types.js';

/** HGETALL's reply (a flat [field, value, ...] array from Lua) as an object. */
export function mapOf(flat: string[]): ConfigMap {
  const map: ConfigMap = {};
  for (let i = 0; i + 1 < flat.length; i += 2) map[flat[i]!] = flat[i + 1]!;
  return map;
}

export function flatten(map: ConfigMap): string[] {
  return Object.entries(map).flat();
}

export function appOf(hash: ConfigMap, config: ConfigMap): App | null {
  if (!hash.name) return null;
  return {
    name: hash.name,
    projectId: hash.project_id ?? '',
    config,
    createdAt: Number(hash.created_at),
    updatedAt: Number(hash.updated_at),
  };
}

export function routeOf(hash: ConfigMap, config: ConfigMap, headers: ConfigMap): Route | null {
  if (!hash.path) return null;
  return {
    appName: hash.app_name ?? '',
    path: hash.path,
    image: hash.image ?? '',
    memory: Number(hash.memory),
    type: hash.type as RouteType,
    format: hash.format as RouteFormat,
    timeout: Number(hash.timeout),
    idleTimeout: Number(hash.idle_timeout),
    maxConcurrency: Number(hash.max_concurrency),
    headers,
    config,
    secret: hash.secret || null,
    createdAt: Number(hash.created_at),
    updatedAt: Number(hash.updated_at),
  };
}

/** The scalar fields of a route as stored (config and headers live in their own hashes). */
export function routeFieldsOf(route: Partial<Route>): Record<string, string> {
  const fields: Record<string, string | number | null | undefined> = {
    app_name: route.appName,
    path: route.path,
    image: route.image,
    memory: route.memory,
    type: route.type,
    format: route.format,
    timeout: route.timeout,
    idle_timeout: route.idleTimeout,
    max_concurrency: route.maxConcurrency,
    secret: route.secret,
    created_at: route.createdAt,
    updated_at: route.updatedAt,
  };
  const stored: Record<string, string> = {};
  for (const [name, value] of Object.entries(fields))
    if (value !== undefined && value !== null) stored[name] = String(value);
  return stored;
}
