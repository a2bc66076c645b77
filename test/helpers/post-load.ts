import { HttpClient } from './http.js';
import { deadlineAfter } from './pace.js';

/** Clients posting messages to one queue as fast as they can, until stopped. */
export interface PostLoad {
  /** Ids of every message the server acknowledged (2xx with ids). */
  acked: string[];
  /** Answers other than 2xx, by status (0: no answer). */
  failures: Map<number, number>;
  /** Latest time a post was acknowledged. */
  lastAckAt: number;
  /** Longest time one client went without an acknowledged post, in ms. */
  longestOutageMs(): number;
  stop(): Promise<void>;
}

export function startPostLoad(clients: HttpClient[], projectId: string, queue: string, perClient = 1): PostLoad {
  let stopped = false;
  const gaps: number[] = [];
  const load: PostLoad = {
    acked: [],
    failures: new Map(),
    lastAckAt: Date.now(),
    longestOutageMs: () => Math.max(0, ...gaps),
    stop: async () => {
      stopped = true;
      await Promise.all(loops);
    },
  };
  const path = `/3/projects/${projectId}/queues/${queue}/messages`;
  const loop = async (http: HttpClient, n: number) => {
    let lastOk = Date.now();
    let gap = 0;
    for (let i = 0; !stopped; i++) {
      let status = 0;
      try {
        const response = await http.post<{ ids?: string[] }>(path, { messages: [{ body: `c${n}-${i}` }] });
        status = response.status;
        if (status < 300 && response.body?.ids) {
          load.acked.push(...response.body.ids);
          load.lastAckAt = lastOk = Date.now();
          gaps[n] = Math.max(gaps[n] ?? 0, gap);
          gap = 0;
          continue;
        }
      } catch {
        status = 0;
      }
      load.failures.set(status, (load.failures.get(status) ?? 0) + 1);
      gap = Date.now() - lastOk;
      // Clients of the original service retry 503s after a pause.
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };
  const loops = clients.flatMap((http, c) =>
    Array.from({ length: perClient }, (_, k) => loop(http, c * perClient + k)),
  );
  return load;
}

/** Polls `check` until it returns true or `timeoutMs` passes; returns whether it turned true. */
export async function waitFor(
  check: () => boolean | Promise<boolean>,
  timeoutMs: number,
  everyMs = 50,
): Promise<boolean> {
  const deadline = deadlineAfter(timeoutMs);
  while (!deadline.passed()) {
    if (await check()) return true;
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
  return check();
}

/** Counts the acknowledged ids the queue no longer has (GET of each message; `concurrency` at once). */
export async function missingMessages(
  http: HttpClient,
  projectId: string,
  queue: string,
  ids: string[],
  concurrency = 16,
): Promise<string[]> {
  const missing: string[] = [];
  let next = 0;
  const worker = async () => {
    while (next < ids.length) {
      const id = ids[next++]!;
      const response = await http.get(`/3/projects/${projectId}/queues/${queue}/messages/${id}`);
      if (response.status !== 200) missing.push(id);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return missing;
}
