import { fail } from '../../core/errors.js';
import type { ConfigMap, RouteSettings } from '../types.js';

export const APP_NAME_PATTERN = /^[A-Za-z0-9_-]{1,30}$/;
/** Absolute, one or more segments of URL-safe characters, no empty segment, no trailing slash. */
const ROUTE_PATH_PATTERN = /^(\/[A-Za-z0-9._~-]+)+$/;
const MAX_PATH_LENGTH = 256;
/** A container image reference: [registry/]name[:tag][@digest]. */
const IMAGE_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._/:@-]{0,254}$/;
const CONFIG_KEY_PATTERN = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;
const HEADER_NAME_PATTERN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,128}$/;
const MAX_VALUE_LENGTH = 64 * 1024;

export const ROUTE_DEFAULTS = {
  memory: 128,
  type: 'sync',
  format: 'default',
  timeout: 30,
  idleTimeout: 30,
  maxConcurrency: 10,
} as const satisfies Partial<RouteSettings>;

export const ROUTE_LIMITS = {
  minMemory: 8,
  maxTimeout: 3600,
  maxIdleTimeout: 3600,
  maxConcurrency: 100,
  minSecretLength: 16,
  maxSecretLength: 512,
} as const;

export function checkAppName(name: string): void {
  if (!APP_NAME_PATTERN.test(name)) throw fail('fn_app_name_invalid');
}

export function checkRoutePath(path: string): void {
  if (path.length > MAX_PATH_LENGTH || !ROUTE_PATH_PATTERN.test(path)) {
    throw fail('fn_route_path_invalid');
  }
  // A client or proxy resolves dot segments before the request arrives, so such a route
  // could never be called by its own path, and /a/../b would shadow /b in a listing.
  if (path.split('/').some((segment) => segment === '.' || segment === '..')) throw fail('fn_route_path_dot_segments');
}

export function checkImage(image: string): void {
  if (!IMAGE_PATTERN.test(image)) throw fail('fn_route_image_invalid');
}

export function checkMemory(memoryMb: number, maxMb: number): void {
  if (memoryMb < ROUTE_LIMITS.minMemory || memoryMb > maxMb)
    throw fail('fn_route_memory_range', ROUTE_LIMITS.minMemory, maxMb);
}

export function checkSeconds(field: string, value: number, max: number): void {
  if (value < 1 || value > max) throw fail('fn_route_seconds_range', field, max);
}

export function checkMaxConcurrency(value: number): void {
  if (value < 1 || value > ROUTE_LIMITS.maxConcurrency)
    throw fail('fn_route_concurrency_range', ROUTE_LIMITS.maxConcurrency);
}

/** An empty secret removes it; any other must be long enough not to be guessed. */
export function checkSecret(secret: string): void {
  if (secret !== '' && secret.length < ROUTE_LIMITS.minSecretLength)
    throw fail('fn_route_secret_too_short', ROUTE_LIMITS.minSecretLength);
  if (secret.length > ROUTE_LIMITS.maxSecretLength)
    throw fail('fn_route_secret_too_long', ROUTE_LIMITS.maxSecretLength);
}

/** Config keys become environment variable names; an empty value (in an update) deletes the key. */
export function checkConfig(field: string, config: ConfigMap): void {
  for (const [key, value] of Object.entries(config)) {
    if (!CONFIG_KEY_PATTERN.test(key)) throw fail('fn_config_key_invalid', field, key);
    if (value.length > MAX_VALUE_LENGTH) throw fail('fn_config_value_too_long', field, key, MAX_VALUE_LENGTH);
  }
}

export function checkHeaders(headers: ConfigMap): void {
  for (const [name, value] of Object.entries(headers)) {
    if (!HEADER_NAME_PATTERN.test(name)) throw fail('fn_route_header_name_invalid', name);
    if (/[\r\n\0]/.test(value)) throw fail('fn_route_header_value_invalid', name);
  }
}

/** A map update: keys with an empty value are removed, the others set. */
export function splitMapChanges(changes: ConfigMap): { set: ConfigMap; remove: string[] } {
  const set: ConfigMap = {};
  const remove: string[] = [];
  for (const [key, value] of Object.entries(changes)) {
    if (value === '') remove.push(key);
    else set[key] = value;
  }
  return { set, remove };
}
