import { fail } from '../../core/errors.js';
import { internalTargetOf } from './internal-url.js';

/** The `ironmq:///` subscriber URLs of a queue of the same project (none when it does not exist). */
export type ReadQueueTargets = (queueName: string) => Promise<string[]>;

// How many queues a loop search reads at most: deeper chains are not followed.
const MAX_QUEUES_VISITED = 100;

/** The names of the queues `urls` push to through `ironmq:///`. */
function queueTargets(urls: readonly string[]): string[] {
  return urls.flatMap((url) => {
    const target = internalTargetOf(url);
    return target?.kind === 'queue' ? [target.name] : [];
  });
}

/**
 * 400 when subscribers `urls` of queue `queueName` would lead back to it through `ironmq:///`
 * subscribers of other queues (A → B → A): every delivery would post a new message forever.
 * Pushing straight to itself is refused where the final subscriber list is known.
 */
export async function refusePushLoop(
  queueName: string,
  urls: readonly string[],
  read: ReadQueueTargets,
): Promise<void> {
  const paths = new Map<string, string[]>();
  const pending = queueTargets(urls).filter((name) => name !== queueName);
  for (const name of pending) paths.set(name, [queueName, name]);
  while (pending.length > 0 && paths.size <= MAX_QUEUES_VISITED) {
    const name = pending.shift()!;
    for (const next of queueTargets(await read(name))) {
      const path = [...paths.get(name)!, next];
      if (next === queueName) throw fail('mq_push_loop', path.join(' → '));
      if (paths.has(next)) continue;
      paths.set(next, path);
      pending.push(next);
    }
  }
}
