import { cachePaths } from '../helpers/cache.js';
import type { HttpClient } from '../helpers/http.js';
import { MqClient } from '../helpers/mq.js';
import { WorkerClient } from '../helpers/worker.js';

/** Where the load writes: one queue, one cache (with one counter in it), tasks of one code. */
export interface LoadTargets {
  projectId: string;
  queue: string;
  cache: string;
  counter: string;
  codeName: string;
}

/** What the load did and what the controllers answered, to check against what is stored afterwards. */
export interface LoadLedger {
  /** Ids of every message a controller acknowledged (201 with ids). */
  acked: string[];
  /** Ids deleted with their reservation (200). */
  deleted: Set<string>;
  /** Ids a reservation handed out again after they were deleted. */
  reservedAfterDelete: string[];
  /** Deletes of a reserved message, with its own reservation, that were refused. */
  refusedDeletes: Array<{ id: string; status: number; via: string }>;
  /** Cache values written: key → value. */
  cacheValues: Map<string, string>;
  /** Increments of the counter acknowledged (each adds 1). */
  increments: number;
  /** Ids of the tasks queued. */
  tasks: string[];
  /** Any other answer that was not a success: "<operation> <status> via <url>" → count. */
  failures: Map<string, number>;
  /** Requests sent to each controller, by URL. */
  sentTo: Map<string, number>;
}

export function emptyLedger(): LoadLedger {
  return {
    acked: [],
    deleted: new Set(),
    reservedAfterDelete: [],
    refusedDeletes: [],
    cacheValues: new Map(),
    increments: 0,
    tasks: [],
    failures: new Map(),
    sentTo: new Map(),
  };
}

/**
 * Runs `workers` loops of `rounds` rounds each; every request goes to one of `controllers` at
 * random. A round posts three messages, reserves up to two and deletes what it got (each delete
 * again through a controller picked at random), writes a cache item, increments the counter,
 * and every fifth round queues a task.
 */
export async function runMixedLoad(
  controllers: HttpClient[],
  targets: LoadTargets,
  ledger: LoadLedger,
  { workers = 4, rounds = 30 } = {},
): Promise<void> {
  const pick = () => {
    const http = controllers[Math.floor(Math.random() * controllers.length)]!;
    ledger.sentTo.set(http.baseUrl, (ledger.sentTo.get(http.baseUrl) ?? 0) + 1);
    return http;
  };
  const failed = (operation: string, status: number, http: HttpClient) => {
    const key = `${operation} ${status} via ${http.baseUrl}`;
    ledger.failures.set(key, (ledger.failures.get(key) ?? 0) + 1);
  };
  const round = async (worker: number, n: number) => {
    await postThree(pick(), targets, ledger, `w${worker}-r${n}`, failed);
    await reserveAndDelete(pick, targets, ledger, failed);
    await writeCache(pick, targets, ledger, `w${worker}-r${n}`, failed);
    if (n % 5 === 0) await queueTask(pick(), targets, ledger, `w${worker}-r${n}`, failed);
  };
  await Promise.all(
    Array.from({ length: workers }, async (_, worker) => {
      for (let n = 0; n < rounds; n++) await round(worker, n);
    }),
  );
}

type Failed = (operation: string, status: number, http: HttpClient) => void;

async function postThree(http: HttpClient, targets: LoadTargets, ledger: LoadLedger, label: string, failed: Failed) {
  const mq = new MqClient(http, targets.projectId);
  const response = await http.post<{ ids?: string[] }>(mq.path(targets.queue, '/messages'), {
    messages: [{ body: `${label}-a` }, { body: `${label}-b` }, { body: `${label}-c` }],
  });
  if (response.status === 201 && response.body.ids) ledger.acked.push(...response.body.ids);
  else failed('post', response.status, http);
}

async function reserveAndDelete(pick: () => HttpClient, targets: LoadTargets, ledger: LoadLedger, failed: Failed) {
  const reserving = pick();
  const response = await reserving.post<{ messages?: Array<{ id: string; reservation_id: string }> }>(
    new MqClient(reserving, targets.projectId).path(targets.queue, '/reservations'),
    { n: 2 },
  );
  if (response.status !== 200) return failed('reserve', response.status, reserving);
  for (const message of response.body.messages ?? []) {
    if (ledger.deleted.has(message.id)) ledger.reservedAfterDelete.push(message.id);
    const deleting = pick();
    const deleted = await new MqClient(deleting, targets.projectId).delete(
      targets.queue,
      message.id,
      message.reservation_id,
    );
    if (deleted.status === 200) ledger.deleted.add(message.id);
    else ledger.refusedDeletes.push({ id: message.id, status: deleted.status, via: deleting.baseUrl });
  }
}

async function writeCache(
  pick: () => HttpClient,
  targets: LoadTargets,
  ledger: LoadLedger,
  label: string,
  failed: Failed,
) {
  const paths = cachePaths(targets.projectId, targets.cache);
  const putting = pick();
  const put = await putting.put(paths.item(label), { value: `value-${label}` });
  if (put.status === 200) ledger.cacheValues.set(label, `value-${label}`);
  else failed('cache put', put.status, putting);
  const incrementing = pick();
  const increment = await incrementing.post(paths.increment(targets.counter), { amount: 1 });
  if (increment.status === 200) ledger.increments++;
  else failed('cache increment', increment.status, incrementing);
}

async function queueTask(http: HttpClient, targets: LoadTargets, ledger: LoadLedger, label: string, failed: Failed) {
  const worker = new WorkerClient(http, targets.projectId);
  const response = await http.post(worker.path('/tasks'), {
    tasks: [{ code_name: targets.codeName, payload: label }],
  });
  if (response.status === 200) ledger.tasks.push(response.body.tasks[0].id);
  else failed('task', response.status, http);
}
