// The server side of bench/cache.ts: a controller with its own redis-server, in a process of
// its own so the load generator does not share its event loop. Prints one JSON line when ready.
import { createHistogram, monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';
import { startTestServer } from '../test/helpers/server.js';
import { startProfile, stopProfile } from './lib/phase-profile.js';

const server = await startTestServer({ LOG_LEVEL: 'error' });
process.stdout.write(
  `${JSON.stringify({ url: server.url, token: server.token, projectId: server.projectId, redisUrl: server.redisUrl, keyPrefix: server.config.keyPrefix })}\n`,
);

// With BENCH_PROFILE, each phase a bench ends with SIGUSR2 gets a CPU profile of its own (in
// /tmp/ferrum-bench-prof) and a line on how long the event loop was held (what every request waits
// behind), the garbage collector's pauses, and how many commands the shared Redis connection had
// sent and not yet had answered (what a request's own command waits behind in Redis), sampled each ms.
const loopDelay = process.env.BENCH_PROFILE ? monitorEventLoopDelay({ resolution: 5 }) : null;
const pending = createHistogram();
const gc = { count: 0, totalMs: 0, maxMs: 0 };
/** GC pauses by kind (minor: scavenges; major: mark-sweep-compact; incremental marking steps; weak callbacks). */
const GC_KINDS: Record<number, string> = { 1: 'minor', 2: 'major', 4: 'incremental', 8: 'weak' };
const gcKinds = new Map<string, { count: number; totalMs: number; maxMs: number }>();
let phase = 0;
if (loopDelay) {
  loopDelay.enable();
  const connection = server.running.ctx.redis as unknown as { commandQueue?: { length: number } };
  setInterval(() => pending.record((connection.commandQueue?.length ?? 0) + 1), 1).unref();
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      gc.count += 1;
      gc.totalMs += entry.duration;
      gc.maxMs = Math.max(gc.maxMs, entry.duration);
      const name = GC_KINDS[(entry as unknown as { detail?: { kind?: number } }).detail?.kind ?? 0] ?? 'other';
      const kind = gcKinds.get(name) ?? { count: 0, totalMs: 0, maxMs: 0 };
      gcKinds.set(name, {
        count: kind.count + 1,
        totalMs: kind.totalMs + entry.duration,
        maxMs: Math.max(kind.maxMs, entry.duration),
      });
    }
  }).observe({ entryTypes: ['gc'] });
  await startProfile();
}
process.on('SIGUSR2', () => void endPhase());

async function endPhase(): Promise<void> {
  if (!loopDelay) return;
  const ms = (ns: number) => (ns / 1e6).toFixed(1);
  const file = `/tmp/ferrum-bench-prof/phase-${process.pid}-${phase++}.cpuprofile`;
  await stopProfile(file);
  const queued = (p: number) => pending.percentile(p) - 1;
  process.stderr.write(
    `  server event loop delay: p50 ${ms(loopDelay.percentile(50))} ms, p99 ${ms(loopDelay.percentile(99))} ms, max ${ms(loopDelay.max)} ms; ` +
      `GC ${gc.count} pauses, ${gc.totalMs.toFixed(0)} ms, max ${gc.maxMs.toFixed(1)} ms (${describeGcKinds()}); heap ${(process.memoryUsage().heapUsed / 2 ** 20).toFixed(0)} MiB, external ${(process.memoryUsage().external / 2 ** 20).toFixed(0)} MiB; ` +
      `commands awaiting Redis on the shared connection: p50 ${queued(50)}, p99 ${queued(99)}, max ${pending.max - 1}; profile ${file}\n`,
  );
  loopDelay.reset();
  pending.reset();
  Object.assign(gc, { count: 0, totalMs: 0, maxMs: 0 });
  gcKinds.clear();
  await startProfile();
}

function describeGcKinds(): string {
  return [...gcKinds]
    .map(([name, kind]) => `${name} ${kind.count}, ${kind.totalMs.toFixed(0)} ms, max ${kind.maxMs.toFixed(1)} ms`)
    .join('; ');
}

async function shutdown() {
  await server.stop();
  process.exit(0);
}
process.on('SIGTERM', () => void shutdown());
process.on('SIGINT', () => void shutdown());
