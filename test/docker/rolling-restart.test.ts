// Own server set-up: two controller processes behind nginx are killed and started again on their ports one by one: the restart is what it tests.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freeLoopbackPort } from '../../src/core/free-port.js';
import { eventually } from '../helpers/eventually.js';
import { signalAndWait, startFerrumProcess, type FerrumProcess } from '../helpers/ferrum-process.js';
import { HttpClient } from '../helpers/http.js';
import { startNginx, type TestNginx } from '../helpers/nginx.js';
import { missingMessages, startPostLoad } from '../helpers/post-load.js';
import { startTestRedis } from '../helpers/redis.js';
import { scaled } from '../helpers/pace.js';
import { loopInterval } from '../helpers/load-loop.js';

/**
 * A rolling restart of two controllers sharing one Redis, behind Debian's nginx, which never
 * sends a request twice once it has sent it (a POST that fails there is a 502). nginx's list
 * follows the controllers' /ready the way Kubernetes' endpoints follow readiness: a watcher
 * polls /ready and reloads nginx with the controllers that answer 200. The drain is what keeps
 * this lossless: a stopping controller answers /ready 503 but keeps serving until nginx no
 * longer sends to it, and only then closes its listener.
 */

/** FERRUM_HTTP_DRAIN_MS's default, which the controllers run with. */
const DRAIN_MS = 5000;
const WATCH_EVERY_MS = 200;

type ReadyState = 200 | 503 | 'refused' | 'other';

async function readyState(port: number): Promise<ReadyState> {
  try {
    const response = await fetch(`http://127.0.0.1:${port}/ready`, { signal: AbortSignal.timeout(scaled(2000)) });
    await response.arrayBuffer();
    return response.status === 200 || response.status === 503 ? response.status : 'other';
  } catch (error) {
    return /ECONNREFUSED/.test(String((error as Error & { cause?: Error }).cause)) ? 'refused' : 'other';
  }
}

/** Polls each controller's /ready and keeps nginx's upstream list to the ready ones. */
function watchReadiness(nginx: TestNginx, ports: number[]) {
  const seen = new Map<number, ReadyState[]>(ports.map((port) => [port, []]));
  let inNginx = new Set<number>();
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      const states = await Promise.all(ports.map(readyState));
      ports.forEach((port, i) => {
        const history = seen.get(port)!;
        if (history.at(-1) !== states[i]) history.push(states[i]!);
      });
      const ready = new Set(ports.filter((_, i) => states[i] === 200));
      const changed = ready.size > 0 && [...ports].some((port) => ready.has(port) !== inNginx.has(port));
      if (changed) {
        await nginx.setUpstreams(ports.map((port) => ({ port, down: !ready.has(port) })));
        inNginx = ready;
      }
      await loopInterval(WATCH_EVERY_MS);
    }
  })();
  return {
    /** The /ready states each controller went through, changes only. */
    seen,
    inNginx: (port: number) => inNginx.has(port),
    stop: async () => {
      stopped = true;
      await loop;
    },
  };
}

describe('rolling restart of two controllers behind nginx', () => {
  let redis: Awaited<ReturnType<typeof startTestRedis>>;
  let nginx: TestNginx;
  const procs: FerrumProcess[] = [];
  let ports: number[];

  const startController = async (port: number) => {
    const proc = await startFerrumProcess('controller', {
      port,
      env: { REDIS_URL: redis.url, LOG_LEVEL: 'warn' },
    });
    procs.push(proc);
    return proc;
  };

  beforeAll(async () => {
    redis = await startTestRedis();
    ports = [await freeLoopbackPort(), await freeLoopbackPort()];
    nginx = await startNginx(ports.map((port) => ({ port, down: false })));
  }, scaled(120_000));

  afterAll(async () => {
    for (const proc of procs) await signalAndWait(proc, 'SIGKILL').catch(() => undefined);
    await nginx?.stop();
    await redis?.stop();
  });

  it(
    'loses no POST and no acknowledged message, and ends long-polls empty',
    async () => {
      const first = await startController(ports[0]!);
      const running = [first, await startController(ports[1]!)];
      const token = first.token!;
      const projectId = first.projectId!;
      const watcher = watchReadiness(nginx, ports);
      try {
        await eventually(() => ports.every(watcher.inNginx), 30_000, 'both controllers in nginx');
        const viaNginx = new HttpClient(nginx.url, token);
        const queue = 'rolling';
        expect((await viaNginx.put(`/3/projects/${projectId}/queues/${queue}`, {})).status).toBe(200);
        const load = startPostLoad(
          Array.from({ length: 4 }, () => viaNginx),
          projectId,
          queue,
        );
        const ackedAtLeast = (count: number) => eventually(() => load.acked.length >= count, 30_000, `${count} posts`);
        await ackedAtLeast(50);

        for (const [index, port] of ports.entries()) {
          const old = running[index]!;
          // A long-poll waiting on the stopping controller is answered, empty, before it exits.
          const direct = new HttpClient(old.url, token);
          const idle = `/3/projects/${projectId}/queues/idle-${index}`;
          expect((await direct.put(idle, {})).status).toBe(200);
          const longPoll = direct.post(`${idle}/reservations`, { n: 1, wait: 30 });
          const stopping = signalAndWait(old, 'SIGTERM', 30_000);
          await eventually(() => !watcher.inNginx(port), DRAIN_MS, `controller ${index} out of nginx within the drain`);
          expect(await longPoll).toMatchObject({ status: 200, body: { messages: [] } });
          expect(await stopping).toBeLessThan(scaled(20_000));
          expect(await old.exited).toBe(0);
          const acked = load.acked.length;
          running[index] = await startController(port);
          await eventually(() => watcher.inNginx(port), 30_000, `controller ${index} back in nginx`);
          await ackedAtLeast(acked + 50);
        }
        await load.stop();

        // Without the drain (FERRUM_HTTP_DRAIN_MS=0) this run saw three 502s out of ~3000 posts.
        console.log(
          `[rolling-restart] posts_acked=${load.acked.length} failures=${JSON.stringify([...load.failures])}`,
        );
        expect(Object.fromEntries(load.failures)).toEqual({});
        // Each stopping controller answered /ready 503 before it stopped accepting connections (a
        // poll cut by the listener's close, 'other', tells nothing either way).
        for (const port of ports) {
          const states = watcher.seen
            .get(port)!
            .filter((state) => state !== 'other')
            .filter((state, i, all) => i === 0 || state !== all[i - 1]);
          expect(states.slice(0, 4)).toEqual([200, 503, 'refused', 200]);
        }
        const direct = new HttpClient(running[1]!.url, token);
        expect(await missingMessages(direct, projectId, queue, load.acked)).toEqual([]);
        expect(nginx.errorLog()).not.toMatch(/\[error\]/);
      } finally {
        await watcher.stop();
      }
    },
    scaled(240_000),
  );
});
