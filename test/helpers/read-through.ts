import { afterAll, beforeAll } from 'vitest';

/**
 * A stand-in for a test file's fixture that exists only once its beforeAll has run: every use
 * reads through to `current()`, so files hold it in a top-level const and use it inside tests
 * and hooks as the thing itself. Methods are bound to the real object (private fields work), and
 * `instanceof` sees its class (isCluster tells a Redis Cluster client by it).
 */
export function readThrough<T extends object>(current: () => T): T {
  return new Proxy({} as T, {
    get: (_, name) => {
      const target = current();
      const value: unknown = Reflect.get(target, name);
      return typeof value === 'function' ? value.bind(target) : value;
    },
    set: (_, name, value) => Reflect.set(current(), name, value),
    has: (_, name) => Reflect.has(current(), name),
    getPrototypeOf: () => Reflect.getPrototypeOf(current()),
    ownKeys: () => Reflect.ownKeys(current()),
    getOwnPropertyDescriptor: (_, name) => {
      const found = Reflect.getOwnPropertyDescriptor(current(), name);
      return found && { ...found, configurable: true };
    },
  });
}

/** `make()` on first use (inside a test or hook), the same object after: a client of a file's server. */
export function madeOnFirstUse<T extends object>(make: () => T): T {
  let made: T | undefined;
  return readThrough(() => (made ??= make()));
}

/**
 * A fixture of the enclosing file or describe block: `start()` before its tests, `stop` after
 * them (vitest runs after-hooks in reverse, so a fixture made later stops first); the value
 * returned reads through to what `start` made.
 */
export function useStarted<T extends object>(
  what: string,
  start: () => Promise<T>,
  stop: (started: T) => Promise<unknown>,
  /** The start's own bound, where it is longer than vitest's hookTimeout (a process with its runner). */
  timeoutMs?: number,
): T {
  let started: T | undefined;
  beforeAll(async () => {
    started = await start();
  }, timeoutMs);
  afterAll(async () => {
    if (started) await stop(started);
  });
  return readThrough(() => {
    if (!started) throw new Error(`${what} is read before the beforeAll that starts it`);
    return started;
  });
}
