import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VERSION } from '../../src/core/version.js';
import { signalAndWait, startFerrumProcess, type FerrumProcess } from '../helpers/ferrum-process.js';
import { HttpClient } from '../helpers/http.js';
import { scaled } from '../helpers/pace.js';
import { startTestRedis } from '../helpers/redis.js';
import { builtRelease, previousReleases } from '../helpers/releases.js';
import { WorkerClient } from '../helpers/worker.js';
import { emptyLedger, runMixedLoad, type LoadLedger, type LoadTargets } from './mixed-load.js';
import { drainQueue, storedState, type StoredState } from './stored-state.js';

/**
 * A rolling upgrade from each previous release (test/upgrade/releases.json) to this checkout:
 * the old controller starts first on an empty Redis (the operator's order), then this
 * checkout's beside it; a bounded mixed load sends each request to one of the two at random.
 * Nothing acknowledged may be lost, nothing deleted may come back, no delete may be refused,
 * and both read every cache value and task. Then the rollback: this checkout writes alone and
 * stops, and the old release alone reads everything, queues included.
 */

/** What the operator gives every controller alike (the chart's secret and settings). */
const SHARED_ENV = {
  FERRUM_ENCRYPTION_KEY: 'upgrade-test-secret',
  LOG_LEVEL: 'warn',
};

describe.each(previousReleases())('rolling upgrade from $name ($commit)', (release) => {
  let redis: Awaited<ReturnType<typeof startTestRedis>>;
  const procs: FerrumProcess[] = [];
  let old: HttpClient;
  let current: HttpClient;
  let currentProc: FerrumProcess;
  let targets: LoadTargets;
  const ledger: LoadLedger = emptyLedger();

  beforeAll(async () => {
    const folder = builtRelease(release);
    redis = await startTestRedis();
    const env = { ...SHARED_ENV, REDIS_URL: redis.url };
    const oldProc = await startFerrumProcess('controller', { release: folder, env });
    procs.push(oldProc);
    currentProc = await startFerrumProcess('controller', { env });
    procs.push(currentProc);
    old = new HttpClient(oldProc.url, oldProc.token!);
    current = new HttpClient(currentProc.url, oldProc.token!);
    targets = {
      projectId: oldProc.projectId!,
      queue: 'upgrade',
      cache: 'upgrade',
      counter: 'counter',
      codeName: 'upgrade-code',
    };
    const upload = await new WorkerClient(old, targets.projectId).upload({
      name: targets.codeName,
      image: 'ferrum-test/busybox',
    });
    expect(typeof upload).toBe('string');
  }, scaled(300_000));

  afterAll(async () => {
    for (const proc of procs) await signalAndWait(proc, 'SIGKILL').catch(() => undefined);
    await redis?.stop();
  });

  it('this checkout says which release it is; the old one still answers /health', async () => {
    expect(await current.get('/health')).toMatchObject({ status: 200, body: { status: 'ok', version: VERSION } });
    expect((await old.get('/health')).status).toBe(200);
  });

  it(
    'side by side under load: 0 lost, 0 back after a delete, 0 refused deletes; caches and tasks read through both',
    async () => {
      await runMixedLoad([old, current], targets, ledger);
      const seen = {
        old: await storedState(old, targets, ledger),
        current: await storedState(current, targets, ledger),
      };
      report(release.name, 'side by side', ledger, seen);
      expect(Object.fromEntries(ledger.failures)).toEqual({});
      expect(ledger.refusedDeletes).toEqual([]);
      expect(ledger.reservedAfterDelete).toEqual([]);
      for (const [who, state] of Object.entries(seen)) {
        expect(summarized(state), `${who}: ${JSON.stringify(summarized(state))}`).toEqual(expectedState(ledger));
      }
    },
    scaled(300_000),
  );

  it(
    'rollback: what this checkout wrote alone, and everything before, the old release alone reads and drains',
    async () => {
      const rollbackQueue = 'written-before-rollback';
      const posted = await current.post(`/3/projects/${targets.projectId}/queues/${rollbackQueue}/messages`, {
        messages: Array.from({ length: 10 }, (_, n) => ({ body: `rollback-${n}` })),
      });
      expect(posted.status).toBe(201);
      const rollbackIds: string[] = posted.body.ids;
      const writtenAlone = emptyLedger();
      await runMixedLoad([current], targets, writtenAlone, { workers: 1, rounds: 10 });
      expect(Object.fromEntries(writtenAlone.failures)).toEqual({});
      mergeInto(ledger, writtenAlone);
      await signalAndWait(currentProc, 'SIGTERM', 60_000);

      const peek = await old.get(`/3/projects/${targets.projectId}/queues/${rollbackQueue}/messages?n=100`);
      expect(peek.status).toBe(200);
      expect(peek.body.messages.map((message: { id: string }) => message.id).sort()).toEqual([...rollbackIds].sort());
      const rollbackLedger = { ...emptyLedger(), acked: rollbackIds };
      const rollbackTargets = { ...targets, queue: rollbackQueue };
      const seen = await storedState(old, targets, ledger);
      report(release.name, 'rollback', ledger, { old: seen });
      expect(summarized(seen), `old: ${JSON.stringify(summarized(seen))}`).toEqual(expectedState(ledger));
      expect(await drainQueue(old, rollbackTargets, rollbackLedger)).toEqual({
        drained: 10,
        problems: [],
        sizeAfter: 0,
      });
      const remaining = ledger.acked.length - ledger.deleted.size;
      expect(await drainQueue(old, targets, ledger)).toEqual({ drained: remaining, problems: [], sizeAfter: 0 });
    },
    scaled(300_000),
  );
});

/** What every controller must find after the load: each acknowledged message once, each deleted one gone. */
function expectedState(ledger: LoadLedger): Record<keyof StoredState, unknown> {
  return {
    lost: 'none',
    backAfterDelete: 'none',
    size: ledger.acked.length - ledger.deleted.size,
    cacheMismatches: 'none',
    counter: ledger.increments,
    unreadableTasks: 'none',
  };
}

/** A list as its length and first few entries. */
function list(entries: string[]): string {
  return entries.length === 0 ? 'none' : `${entries.length}, e.g. ${entries.slice(0, 3).join('; ')}`;
}

/** The state with each list as its length and first few entries, so a failure reads in one screen. */
function summarized(state: StoredState): Record<keyof StoredState, unknown> {
  return {
    lost: list(state.lost),
    backAfterDelete: list(state.backAfterDelete),
    size: state.size,
    cacheMismatches: list(state.cacheMismatches),
    counter: state.counter,
    unreadableTasks: list(state.unreadableTasks),
  };
}

function mergeInto(ledger: LoadLedger, more: LoadLedger): void {
  ledger.acked.push(...more.acked);
  for (const id of more.deleted) ledger.deleted.add(id);
  for (const [key, value] of more.cacheValues) ledger.cacheValues.set(key, value);
  ledger.increments += more.increments;
  ledger.tasks.push(...more.tasks);
}

/** One line per controller with the counts, so a failing run says at once what went wrong and where. */
function report(release: string, phase: string, ledger: LoadLedger, seen: Record<string, StoredState>): void {
  const counts = Object.entries(seen).map(
    ([who, state]) =>
      `${who}: lost=${state.lost.length} back_after_delete=${state.backAfterDelete.length} size=${state.size} ` +
      `cache_mismatches=${state.cacheMismatches.length} counter=${state.counter} unreadable_tasks=${state.unreadableTasks.length}`,
  );
  console.log(
    `[upgrade ${release} ${phase}] acked=${ledger.acked.length} deleted=${ledger.deleted.size} ` +
      `refused_deletes=${ledger.refusedDeletes.length} reserved_after_delete=${ledger.reservedAfterDelete.length} ` +
      `failures=${JSON.stringify(Object.fromEntries(ledger.failures))} requests=${JSON.stringify(Object.fromEntries(ledger.sentTo))} | ` +
      counts.join(' | '),
  );
}
