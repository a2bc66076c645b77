import type { Logger } from 'pino';
import type { DockerExecutor } from '../docker-executor.js';

export const LABELS = {
  managed: 'ferrum.managed',
  store: 'ferrum.store',
  runner: 'ferrum.runner',
  cluster: 'ferrum.cluster',
} as const;

/**
 * Removes containers of this Ferrum store whose runner no longer heartbeats: what a runner
 * killed mid-task leaves behind. Containers of live runners (on this machine or sharing its
 * engine) are left alone.
 */
export async function removeOrphanContainers(
  executor: DockerExecutor,
  registry: { isAlive(cluster: string, runnerId: string): Promise<boolean> },
  storeId: string,
  ownRunnerId: string,
  log: Logger,
): Promise<number> {
  const containers = await executor.listLabelled([`${LABELS.managed}=true`, `${LABELS.store}=${storeId}`]);
  let removed = 0;
  for (const container of containers) {
    const runnerId = container.Labels[LABELS.runner];
    const cluster = container.Labels[LABELS.cluster];
    if (!runnerId || !cluster || runnerId === ownRunnerId) continue;
    if (await registry.isAlive(cluster, runnerId)) continue;
    await executor.remove(container.Id).catch(() => {});
    log.info({ container: container.Id, runner: runnerId }, 'removed a container left behind by a stopped runner');
    removed++;
  }
  return removed;
}
