import { Gauge, type Registry } from 'prom-client';
import { INSTANCE_TYPES } from '../src/worker/clusters/instance-store.js';
import type { WorkerServices } from '../src/worker/services.js';
import { DEFAULT_CLUSTER } from '../src/worker/tasks/tasks.js';

/**
 * ferrum_cluster_runners_online{cluster}: runners heartbeating in each cluster, read from Redis at
 * scrape time. Without `tenantLabels`, tenant clusters are summed as cluster="tenants".
 */
export function registerRunnersOnlineGauge(registry: Registry, worker: WorkerServices, tenantLabels: boolean): void {
  new Gauge({
    name: 'ferrum_cluster_runners_online',
    help: 'Runners whose heartbeat is current, per cluster',
    labelNames: ['cluster'] as const,
    registers: [registry],
    async collect() {
      this.reset();
      const clusterIds = [DEFAULT_CLUSTER, ...(await worker.clusters.all()).map((cluster) => cluster.id)];
      for (const id of clusterIds) {
        const { instances } = await worker.runners.runnersOf(id);
        this.inc({ cluster: tenantLabels || id === DEFAULT_CLUSTER ? id : 'tenants' }, instances.length);
      }
    },
  });
}

/** ferrum_cluster_instances{type}: instances of every cluster by type, read from Redis at scrape time. */
export function registerClusterInstanceGauge(registry: Registry, worker: WorkerServices): void {
  new Gauge({
    name: 'ferrum_cluster_instances',
    help: 'Instances of all clusters by type (ADD, LIVE, KILL, TERMINATE)',
    labelNames: ['type'] as const,
    registers: [registry],
    async collect() {
      const counts = new Map<string, number>(INSTANCE_TYPES.map((type) => [type, 0]));
      const clusterIds = [DEFAULT_CLUSTER, ...(await worker.clusters.all()).map((cluster) => cluster.id)];
      for (const clusterId of clusterIds) {
        const { instances } = await worker.clusterStatus.instancesOf(clusterId);
        for (const instance of instances) counts.set(instance.type, (counts.get(instance.type) ?? 0) + 1);
      }
      for (const [type, count] of counts) this.set({ type }, count);
    },
  });
}
