import { Gauge, type Registry } from 'prom-client';
import type { QueueRef } from '../mq/keys.js';
import type { ClusterTaskCounts, TaskCounts } from '../worker/tasks/task-counts.js';

/** One pass of the leader's metrics sampler. */
export interface ControllerSample {
  /** The deepest queues over all projects, deepest first (at most FERRUM_METRICS_TOP_QUEUES). */
  deepestQueues: Array<{ item: QueueRef; value: number }>;
  /** Per deepest queue (same order), when its oldest ready message was posted (epoch ms), or null. */
  oldestReadyAt: Array<number | null>;
  tasks: TaskCounts;
  clusters: Map<string, ClusterTaskCounts>;
}

/**
 * Gauges the leader controller fills from Redis each sample. Each pass replaces every series, so
 * the queue depth gauge never holds more than the top N queues; a process that stopped sampling
 * (it lost the lease) drops its series once they are older than `maxAgeMs`, so only the current
 * leader reports them.
 */
export class SampledGauges {
  private sampledAt = 0;
  private readonly queueDepth: Gauge<'project_id' | 'queue'>;
  private readonly tasks: Gauge<'state'>;
  private readonly clusterTasks: Gauge<'cluster' | 'state'>;
  private readonly oldestTaskAge: Gauge<'cluster'>;
  private readonly oldestMessageAge: Gauge<'project_id' | 'queue'>;
  private readonly oldestMessageAgeMax: Gauge;

  /**
   * `tenantLabels` off (the default): no queue depth series and tenant clusters summed as
   * cluster="tenants", so that /metrics names no project, queue or tenant cluster.
   */
  constructor(
    registry: Registry,
    maxAgeMs: number,
    private readonly privacy: { tenantLabels: boolean; operatorCluster: string },
  ) {
    const dropWhenStale = (gauge: Gauge<string>) => {
      if (Date.now() - this.sampledAt > maxAgeMs) gauge.reset();
    };
    this.queueDepth = new Gauge({
      name: 'ferrum_mq_queue_depth_messages',
      help: 'Messages (available, delayed and reserved) on the deepest queues over all projects, the top N only',
      labelNames: ['project_id', 'queue'] as const,
      registers: [registry],
      collect() {
        dropWhenStale(this);
      },
    });
    this.tasks = new Gauge({
      name: 'ferrum_worker_tasks',
      help: 'Task records over all projects, by status',
      labelNames: ['state'] as const,
      registers: [registry],
      collect() {
        dropWhenStale(this);
      },
    });
    this.clusterTasks = new Gauge({
      name: 'ferrum_worker_cluster_tasks',
      help: 'Tasks per cluster: queued (waiting for a runner, due or delayed) and active (held by a runner)',
      labelNames: ['cluster', 'state'] as const,
      registers: [registry],
      collect() {
        dropWhenStale(this);
      },
    });
    this.oldestTaskAge = new Gauge({
      name: 'ferrum_worker_oldest_queued_task_age_seconds',
      help: 'Per cluster, how long the longest-waiting due task has waited for a runner (0 when none waits)',
      labelNames: ['cluster'] as const,
      registers: [registry],
      collect() {
        dropWhenStale(this);
      },
    });
    this.oldestMessageAge = new Gauge({
      name: 'ferrum_mq_oldest_message_age_seconds',
      help: 'How long the next message to be reserved has waited, on each of the deepest queues (the top N only)',
      labelNames: ['project_id', 'queue'] as const,
      registers: [registry],
      collect() {
        dropWhenStale(this);
      },
    });
    this.oldestMessageAgeMax = new Gauge({
      name: 'ferrum_mq_oldest_message_age_max_seconds',
      help: 'The longest wait of a ready message over the deepest queues (0 when none is ready); names no queue',
      registers: [registry],
      collect() {
        dropWhenStale(this);
      },
    });
  }

  publish(sample: ControllerSample): void {
    const now = Date.now();
    this.queueDepth.reset();
    this.oldestMessageAge.reset();
    let longestWaitMs = 0;
    sample.deepestQueues.forEach(({ item, value }, i) => {
      const postedAt = sample.oldestReadyAt[i];
      const waitedMs = postedAt == null ? null : Math.max(0, now - postedAt);
      longestWaitMs = Math.max(longestWaitMs, waitedMs ?? 0);
      if (!this.privacy.tenantLabels) return;
      const labels = { project_id: item.projectId, queue: item.name };
      this.queueDepth.set(labels, value);
      if (waitedMs !== null) this.oldestMessageAge.set(labels, waitedMs / 1000);
    });
    this.oldestMessageAgeMax.set(longestWaitMs / 1000);
    for (const [state, count] of Object.entries(sample.tasks)) this.tasks.set({ state }, count);
    this.clusterTasks.reset();
    this.oldestTaskAge.reset();
    const oldest = new Map<string, number>();
    for (const [id, counts] of sample.clusters) {
      const cluster = this.privacy.tenantLabels || id === this.privacy.operatorCluster ? id : 'tenants';
      this.clusterTasks.inc({ cluster, state: 'queued' }, counts.queued);
      this.clusterTasks.inc({ cluster, state: 'active' }, counts.active);
      const waitedMs = counts.oldestDueAt === null ? 0 : Math.max(0, now - counts.oldestDueAt);
      oldest.set(cluster, Math.max(oldest.get(cluster) ?? 0, waitedMs));
    }
    for (const [cluster, waitedMs] of oldest) this.oldestTaskAge.set({ cluster }, waitedMs / 1000);
    this.sampledAt = Date.now();
  }
}
