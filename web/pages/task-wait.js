// @ts-check
import { clusters, worker } from '../client.js';
/** @typedef {import('../types').Task} Task */
/** @typedef {import('../types').Code} Code */

/**
 * Why queued tasks wait, looked up once per package and cluster for a whole page of tasks:
 * its package's task queue is paused, no runner serves its cluster, or every max_concurrency
 * slot of its package is taken. A reason that cannot be read (no access) is left out.
 */
export class WaitReasons {
  /** @type {Map<string, Promise<string>>} */
  #cache = new Map();

  /** @param {string} key @param {() => Promise<string>} find */
  #once(key, find) {
    if (!this.#cache.has(key))
      this.#cache.set(
        key,
        find().catch(() => ''),
      );
    return /** @type {Promise<string>} */ (this.#cache.get(key));
  }

  /** The reason a queued task waits, '' when it is not queued or none is known. @param {Task} task */
  async of(task) {
    if (task.status !== 'queued') return '';
    const byPackage = await this.#once(`code:${task.code_id}`, () => packageReason(task));
    if (byPackage) return byPackage;
    const cluster = task.cluster || 'default';
    return this.#once(`cluster:${cluster}`, () => clusterReason(cluster));
  }
}

/** @param {Task} task */
async function packageReason(task) {
  const code = await worker.code(task.code_id);
  if (code.max_concurrency === -1)
    return `Waiting: the task queue of package ${code.name} is paused (resume it on the package's page).`;
  if (!code.max_concurrency || code.max_concurrency < 1) return '';
  const busy = await worker.tasks({ code_name: code.name, running: 1, preparing: 1, per_page: 100 });
  if (busy.length < code.max_concurrency) return '';
  return `Waiting: ${busy.length} of package ${code.name}'s tasks run, its max_concurrency is ${code.max_concurrency}.`;
}

/** @param {string} id */
async function clusterReason(id) {
  const cluster = await clusters.get(id);
  if (Number(cluster.runners_total) > 0) return '';
  return `Waiting: no runner serves cluster ${cluster.name || id}; the task stays queued until one starts.`;
}
