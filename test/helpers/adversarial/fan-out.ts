import { expect } from 'vitest';
import type { Tenant } from './tenant-data.js';

/** Saves `name` as a multicast push queue with one `ironmq:///` subscriber per target; returns its messages' path. */
export async function fanOutQueue(tenant: Tenant, name: string, targets: string[]): Promise<string> {
  const path = `/3/projects/${tenant.projectId}/queues/${name}`;
  const subscribers = targets.map((target, i) => ({ name: `s${i}`, url: `ironmq:///${target}` }));
  const saved = await tenant.http.put(path, { queue: { type: 'multicast', push: { subscribers } } });
  expect(saved.status, saved.text).toBe(200);
  return `${path}/messages`;
}

/** The size of a tenant's queue (0 while it does not exist). */
export async function queueSize(tenant: Tenant, name: string): Promise<number> {
  const info = await tenant.http.get(`/3/projects/${tenant.projectId}/queues/${name}`);
  return info.status === 200 ? Number(info.body.queue.size) : 0;
}

/** The messages on all of `names` together (a fan-out's copies so far). */
export async function copies(tenant: Tenant, names: string[]): Promise<number> {
  const sizes = await Promise.all(names.map((name) => queueSize(tenant, name)));
  return sizes.reduce((sum, each) => sum + each, 0);
}
