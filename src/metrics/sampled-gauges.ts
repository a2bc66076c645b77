import { Gauge, type Registry } from 'prom-client';
import type { QueueTotals, SampledQueue } from '../mq/queues/queue-depth.js';
import type { TaskCounts } from '../worker/tasks/queues/task-counts.js';

/** What the sampler saw of one cluster (see controller/loops/cluster-metrics.ts). */
export interface SampledCluster {
  queued: number;
  active: number;
  oldestDueAt: number | null;
  runners: number;
  slots: number;
  freeSlots: number;
}

/** One pass of the leader's metrics sampler. */
export interface ControllerSample {
  /** Every queue of every project, summed. */
  queues: QueueTotals;
  /** The deepest queues over all projects, deepest first (at most FERRUM_METRICS_TOP_QUEUES). */
  deepestQueues: Array<{ item: SampledQueue; value: number }>;
  tasks: TaskCounts;
  clusters: Map<string, SampledCluster>;
  /** Instances of all clusters by type. */
  instances: Map<string, number>;
}

const seconds = (ms: number) => ms / 1000;

type MakeGauge = <L extends string>(name: string, help: string, labelNames?: readonly L[]) => Gauge<L>;

/**
 * Gauges the leader controller fills from Redis each sample; /metrics only reads them, so a scrape
 * never waits on Redis. While Redis cannot be read they keep the last sample (its age says how
 * old); a process that lost the sampler's lease to another controller drops them (retire()), so
 * only the current leader reports them.
 */
export class SampledGauges {
  private sampledAt = 0;
  private readonly all: Array<Gauge<string>> = [];
  private readonly mq;
  private readonly worker;

  /**
   * `tenantLabels` off (the default): no per-queue series and tenant clusters summed as
   * cluster="tenants", so that /metrics names no project, queue or tenant cluster.
   */
  constructor(
    registry: Registry,
    private readonly privacy: { tenantLabels: boolean; operatorClusters: string[] },
  ) {
    const gauge: MakeGauge = (name, help, labelNames = []) => {
      const made = new Gauge({ name, help, labelNames, registers: [registry] });
      this.all.push(made as Gauge<string>);
      return made;
    };
    sampleAgeGauge(registry, () => (this.sampledAt > 0 ? seconds(Date.now() - this.sampledAt) : null));
    this.mq = queueGauges(gauge);
    this.worker = workerGauges(gauge);
  }

  /** Drops every sampled series: another controller samples now. */
  retire(): void {
    for (const gauge of this.all) gauge.reset();
    this.sampledAt = 0;
  }

  publish(sample: ControllerSample): void {
    const now = Date.now();
    const waited = (since: number | null) => (since === null ? 0 : seconds(Math.max(0, now - since)));
    for (const gauge of this.all) gauge.reset();
    const { queues } = sample;
    for (const state of ['ready', 'delayed', 'reserved'] as const) this.mq.queueMessages.set({ state }, queues[state]);
    this.mq.queueCount.set(queues.queues);
    this.mq.oldestMessageAgeMax.set(waited(queues.oldestReadyAt));
    if (this.privacy.tenantLabels) {
      for (const { item, value } of sample.deepestQueues) {
        const labels = { project_id: item.ref.projectId, queue: item.ref.name };
        this.mq.queueDepth.set(labels, value);
        if (item.oldestReadyAt !== null) this.mq.oldestMessageAge.set(labels, waited(item.oldestReadyAt));
      }
    }
    for (const [state, count] of Object.entries(sample.tasks)) this.worker.tasks.set({ state }, count);
    this.publishClusters(sample.clusters, waited);
    for (const [type, count] of sample.instances) this.worker.instances.set({ type }, count);
    this.sampledAt = now;
  }

  /**
   * Each cluster is judged on its own (does it lack runners? are they all busy?) before tenant
   * clusters are summed under one label, so one tenant's runners never hide another's outage.
   */
  private publishClusters(clusters: Map<string, SampledCluster>, waited: (since: number | null) => number): void {
    const oldest = new Map<string, number>();
    for (const [id, counts] of clusters) {
      const cluster = this.labelOf(id);
      const labels = { cluster };
      this.worker.clusterTasks.inc({ cluster, state: 'queued' }, counts.queued);
      this.worker.clusterTasks.inc({ cluster, state: 'active' }, counts.active);
      this.worker.runnersOnline.inc(labels, counts.runners);
      const due = counts.oldestDueAt !== null;
      this.worker.clustersWithoutRunners.inc(labels, due && counts.runners === 0 ? 1 : 0);
      this.worker.clustersSaturated.inc(labels, due && counts.runners > 0 && counts.freeSlots === 0 ? 1 : 0);
      oldest.set(cluster, Math.max(oldest.get(cluster) ?? 0, waited(counts.oldestDueAt)));
    }
    for (const [cluster, age] of oldest) this.worker.oldestTaskAge.set({ cluster }, age);
  }

  private labelOf(clusterId: string): string {
    return this.privacy.tenantLabels || this.privacy.operatorClusters.includes(clusterId) ? clusterId : 'tenants';
  }
}

/** How old the sample this controller serves is (absent until its first sample). */
function sampleAgeGauge(registry: Registry, ageOfSample: () => number | null): void {
  new Gauge({
    name: 'ferrum_metrics_sample_age_seconds',
    help: 'Age of the sampled gauges this controller serves (it runs the sampler); grows while Redis cannot be read',
    registers: [registry],
    aggregator: 'min',
    collect() {
      this.reset();
      const age = ageOfSample();
      if (age !== null) this.set(age);
    },
  });
}

/** The message queue's gauges. */
function queueGauges(gauge: MakeGauge) {
  return {
    queueMessages: gauge(
      'ferrum_mq_messages',
      'Messages on all queues of all projects, by state (ready, delayed, reserved)',
      ['state'],
    ),
    queueCount: gauge('ferrum_mq_queues', 'Queues over all projects'),
    oldestMessageAgeMax: gauge(
      'ferrum_mq_oldest_message_age_max_seconds',
      'How long the oldest ready message over all queues has waited (0 when none is ready); names no queue',
    ),
    queueDepth: gauge(
      'ferrum_mq_queue_depth_messages',
      'Messages (available, delayed and reserved) on the deepest queues over all projects, the top N only',
      ['project_id', 'queue'],
    ),
    oldestMessageAge: gauge(
      'ferrum_mq_oldest_message_age_seconds',
      'How long the next message to be reserved has waited, on each of the deepest queues (the top N only)',
      ['project_id', 'queue'],
    ),
  };
}

/** The worker's and the clusters' gauges. */
function workerGauges(gauge: MakeGauge) {
  return {
    tasks: gauge('ferrum_worker_tasks', 'Task records over all projects, by status', ['state']),
    clusterTasks: gauge(
      'ferrum_worker_cluster_tasks',
      'Tasks per cluster: queued (waiting for a runner, due or delayed) and active (held by a runner)',
      ['cluster', 'state'],
    ),
    oldestTaskAge: gauge(
      'ferrum_worker_oldest_queued_task_age_seconds',
      'Per cluster, how long the longest-waiting due task has waited for a runner (0 when none waits)',
      ['cluster'],
    ),
    runnersOnline: gauge('ferrum_cluster_runners_online', 'Runners whose heartbeat is current, per cluster', [
      'cluster',
    ]),
    clustersWithoutRunners: gauge(
      'ferrum_worker_clusters_without_runners',
      'Clusters where due tasks wait and no runner is online (each cluster judged on its own, then counted under its label)',
      ['cluster'],
    ),
    clustersSaturated: gauge(
      'ferrum_worker_clusters_saturated',
      'Clusters where due tasks wait while every slot of their online runners is busy',
      ['cluster'],
    ),
    instances: gauge('ferrum_cluster_instances', 'Instances of all clusters by type (ADD, LIVE, KILL, TERMINATE)', [
      'type',
    ]),
  };
}
