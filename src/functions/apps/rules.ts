import { badRequest } from '../../core/errors.js';
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
  if (!APP_NAME_PATTERN.test(name))
    throw badRequest('app name must be 1 to 30 characters of letters, digits, "_" and "-"');
}

export function checkRoutePath(path: string): void {
  if (path.length > MAX_PATH_LENGTH || !ROUTE_PATH_PATTERN.test(path)) {
    throw badRequest(
      'route path must be absolute ("/name"), of segments made of letters, digits and "._~-", without a trailing "/"',
    );
  }
  // A client or proxy resolves dot segments before the request arrives, so such a route
  // could never be called by its own path, and /a/../b would shadow /b in a listing.
  if (path.split('/').some((segment) => segment === '.' || segment === '..'))
    throw badRequest('route path may not have "." or ".." segments');
}

export function checkImage(image: string): void {
  if (!IMAGE_PATTERN.test(image))
    throw badRequest('route image must be a container image reference such as "name:tag"');
}

export function checkMemory(memoryMb: number, maxMb: number): void {
  if (memoryMb < ROUTE_LIMITS.minMemory || memoryMb > maxMb)
    throw badRequest(`route memory must be from ${ROUTE_LIMITS.minMemory} to ${maxMb} MiB`);
}

export function checkSeconds(field: string, value: number, max: number): void {
  if (value < 1 || value > max) throw badRequest(`route ${field} must be from 1 to ${max} seconds`);
}

export function checkMaxConcurrency(value: number): void {
  if (value < 1 || value > ROUTE_LIMITS.maxConcurrency)
    throw badRequest(`route max_concurrency must be from 1 to ${ROUTE_LIMITS.maxConcurrency}`);
}

/** An empty secret removes it; any other must be long enough not to be guessed. */
export function checkSecret(secret: string): void {
  if (secret !== '' && secret.length < ROUTE_LIMITS.minSecretLength)
    throw badRequest(`route secret must be at least ${ROUTE_LIMITS.minSecretLength} characters`);
  if (secret.length > ROUTE_LIMITS.maxSecretLength)
    throw badRequest(`route secret must be at most ${ROUTE_LIMITS.maxSecretLength} characters`);
}

/** Config keys become environment variable names; an empty value (in an update) deletes the key. */
export function checkConfig(field: string, config: ConfigMap): void {
  for (const [key, value] of Object.entries(config)) {
    if (!CONFIG_KEY_PATTERN.test(key))
      throw badRequest(
        `${field} key "${key}" must be a variable name: letters, digits and "_", not starting with a digit`,
      );
    if (value.length > MAX_VALUE_LENGTH)
      throw badRequest(`${field} value of "${key}" is longer than ${MAX_VALUE_LENGTH} characters`);
  }
}

export function checkHeaders(headers: ConfigMap): void {
  for (const [name, value] of Object.entries(headers)) {
    if (!HEADER_NAME_PATTERN.test(name)) throw badRequest(`route headers: "${name}" is not a valid header name`);
    if (/[\r\n\0]/.test(value)) throw badRequest(`route headers: the value of "${name}" must not contain line breaks`);
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
