// With BENCH_LOOP_WATCH, a bench's server child reports its own event loop: the delay histogram
// (how late a 1 ms timer ran: what a request arriving then waited) and V8's garbage collections
// by kind (count, total and longest pause), from `reset()` to `print()`. A tail in the load
// generator's figures that these do not show came from elsewhere (the machine, Redis, the client).
import { monitorEventLoopDelay, PerformanceObserver, type IntervalHistogram } from 'node:perf_hooks';

const GC_KINDS: Record<number, string> = { 1: 'minor', 2: 'major', 4: 'incremental', 8: 'weak callbacks' };

export interface LoopWatch {
  reset(): void;
  print(label: string): void;
}

export function watchLoop(): LoopWatch | null {
  if (!process.env.BENCH_LOOP_WATCH) return null;
  const delay: IntervalHistogram = monitorEventLoopDelay({ resolution: 1 });
  delay.enable();
  let pauses = new Map<string, { count: number; totalMs: number; maxMs: number; over5: number }>();
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const kind = GC_KINDS[(entry as unknown as { detail: { kind: number } }).detail.kind] ?? 'other';
      const seen = pauses.get(kind) ?? { count: 0, totalMs: 0, maxMs: 0, over5: 0 };
      seen.count += 1;
      seen.totalMs += entry.duration;
      seen.maxMs = Math.max(seen.maxMs, entry.duration);
      if (entry.duration > 5) seen.over5 += 1;
      pauses.set(kind, seen);
    }
  }).observe({ entryTypes: ['gc'] });
  let since = performance.now();
  return {
    reset() {
      delay.reset();
      pauses = new Map();
      since = performance.now();
    },
    print(label) {
      const ms = (ns: number) => (ns / 1e6).toFixed(2);
      const gcs = [...pauses]
        .map(
          ([kind, s]) =>
            `${kind} ${s.count} (${s.totalMs.toFixed(0)} ms, max ${s.maxMs.toFixed(1)}, >5 ms: ${s.over5})`,
        )
        .join(', ');
      console.error(
        `  [${label} event loop over ${((performance.now() - since) / 1000).toFixed(1)} s] delay p50 ${ms(delay.percentile(50))} ` +
          `p99 ${ms(delay.percentile(99))} p99.9 ${ms(delay.percentile(99.9))} max ${ms(delay.max)} ms; GC ${gcs || 'none'}; ` +
          `heap ${(process.memoryUsage().heapUsed / 2 ** 20).toFixed(0)} MB`,
      );
    },
  };
}
