import { cachePaths } from '../helpers/cache.js';
import type { HttpClient } from '../helpers/http.js';
import { MqClient } from '../helpers/mq.js';
import { WorkerClient } from '../helpers/worker.js';
import type { LoadLedger, LoadTargets } from './mixed-load.js';

/** What one controller finds of what the load wrote (ids and keys listed where something is wrong). */
export interface StoredState {
  /** Acknowledged, never deleted, and GET by id does not find it. */
  lost: string[];
  /** Deleted, and GET by id still finds it. */
  backAfterDelete: string[];
  /** The queue's size. */
  size: number;
  /** Cache keys whose value is not the one written: "key: got". */
  cacheMismatches: string[];
  /** The counter's value. */
  counter: number | string;
  /** Tasks GET does not answer as queued tasks of the load's code: "id: status". */
  unreadableTasks: string[];
}

/** Reads, through `http`, every message id, cache item and task the ledger holds. */
export async function storedState(http: HttpClient, targets: LoadTargets, ledger: LoadLedger): Promise<StoredState> {
  const mq = new MqClient(http, targets.projectId);
  const found = await inParallel(
    ledger.acked,
    async (id) => (await http.get(mq.path(targets.queue, `/messages/${id}`))).status,
  );
  const paths = cachePaths(targets.projectId, targets.cache);
  const cacheMismatches = await inParallel([...ledger.cacheValues], async ([key, value]) => {
    const response = await http.get(paths.item(key));
    return response.status === 200 && response.body.value === value
      ? null
      : `${key}: ${response.status} ${response.text}`;
  });
  const counter = await http.get(paths.item(targets.counter));
  const worker = new WorkerClient(http, targets.projectId);
  const unreadableTasks = await inParallel(ledger.tasks, async (id) => {
    const response = await http.get(worker.path(`/tasks/${id}`));
    const ok = response.status === 200 && response.body.code_name === targets.codeName;
    return ok ? null : `${id}: ${response.status} ${response.text}`;
  });
  return {
    lost: ledger.acked.filter((id, i) => !ledger.deleted.has(id) && found[i] !== 200),
    backAfterDelete: ledger.acked.filter((id, i) => ledger.deleted.has(id) && found[i] !== 404),
    size: (await mq.info(targets.queue)).size,
    cacheMismatches: cacheMismatches.filter((entry): entry is string => entry !== null),
    counter: counter.status === 200 ? counter.body.value : `${counter.status} ${counter.text}`,
    unreadableTasks: unreadableTasks.filter((entry): entry is string => entry !== null),
  };
}

/**
 * Reserves the queue empty through `http` (bounded: at most one round per 100 expected
 * messages, plus a few), deleting each message with its reservation. Problems: a message
 * reserved that was deleted before or is not one the ledger acknowledged, one reserved twice,
 * a refused delete, an acknowledged one never reserved.
 */
export async function drainQueue(
  http: HttpClient,
  targets: LoadTargets,
  ledger: Pick<LoadLedger, 'acked' | 'deleted'>,
): Promise<{ drained: number; problems: string[]; sizeAfter: number }> {
  const mq = new MqClient(http, targets.projectId);
  const expected = new Set(ledger.acked.filter((id) => !ledger.deleted.has(id)));
  const reserved = new Set<string>();
  const problems: string[] = [];
  for (let round = 0; round < expected.size / 100 + 5; round++) {
    const messages = await mq.reserve(targets.queue, { n: 100 });
    if (messages.length === 0) break;
    for (const message of messages as Array<{ id: string; reservation_id: string }>) {
      if (reserved.has(message.id)) problems.push(`${message.id}: reserved twice`);
      else if (!expected.has(message.id)) problems.push(`${message.id}: deleted before, or never acknowledged`);
      reserved.add(message.id);
      const deleted = await mq.delete(targets.queue, message.id, message.reservation_id);
      if (deleted.status !== 200) problems.push(`${message.id}: delete refused ${deleted.status} ${deleted.text}`);
    }
  }
  for (const id of expected) if (!reserved.has(id)) problems.push(`${id}: never reserved`);
  return { drained: reserved.size, problems, sizeAfter: (await mq.info(targets.queue)).size };
}

async function inParallel<T, R>(items: T[], each: (item: T) => Promise<R>, concurrency = 16): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await each(items[index]!);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return results;
}
