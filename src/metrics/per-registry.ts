import type { Registry } from 'prom-client';

const made = new WeakMap<Registry, Map<string, unknown>>();

/**
 * The one `name` object of a registry, created on first use: prom-client refuses a metric
 * registered twice, and one process may open a service more than once on the same registry.
 */
export function perRegistry<T>(registry: Registry, name: string, create: () => T): T {
  let objects = made.get(registry);
  if (!objects) {
    objects = new Map();
    made.set(registry, objects);
  }
  if (!objects.has(name)) objects.set(name, create());
  return objects.get(name) as T;
}
