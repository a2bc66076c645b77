// With BENCH_LOOP_WATCH, a bench's server child reports its own event loop: the delay histogram
// (how late a 1 ms timer ran: what a request arriving then waited) and V8's garbage collections
// by kind (count, total and longest pause), and each request's time in the server (from its
// 'request' event, its headers parsed, to its answer's 'finish'), from `reset()` to `print()`,
// and which of the slowest 1% of those requests overlapped a garbage collection, and what each
// slow request had beside it (slow-requests.ts). A tail in the load
// generator's figures that these do not show came from elsewhere (the machine, Redis, the client).
import fs from 'node:fs';
import http from 'node:http';
import { Session } from 'node:inspector';
import os from 'node:os';
import path from 'node:path';
import {
  createHistogram,
  monitorEventLoopDelay,
  PerformanceObserver,
  type IntervalHistogram,
  type RecordableHistogram,
} from 'node:perf_hooks';
import { slowRequestCauses, TurnLog } from './slow-requests.js';

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
  const spans = new Spans();
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const kind = GC_KINDS[(entry as unknown as { detail: { kind: number } }).detail.kind] ?? 'other';
      spans.gc.push({ start: entry.startTime, end: entry.startTime + entry.duration, kind });
      const seen = pauses.get(kind) ?? { count: 0, totalMs: 0, maxMs: 0, over5: 0 };
      seen.count += 1;
      seen.totalMs += entry.duration;
      seen.maxMs = Math.max(seen.maxMs, entry.duration);
      if (entry.duration > 5) seen.over5 += 1;
      pauses.set(kind, seen);
    }
  }).observe({ entryTypes: ['gc'] });
  const inServer = timeRequests(spans);
  const turns = new TurnLog();
  if (process.env.BENCH_LOOP_WATCH === 'heap') startAllocationSampling();
  let since = performance.now();
  return {
    reset() {
      if (process.env.BENCH_LOOP_WATCH === 'heap') startAllocationSampling();
      delay.reset();
      inServer.reset();
      spans.reset();
      turns.reset();
      pauses = new Map();
      since = performance.now();
    },
    print(label) {
      if (process.env.BENCH_LOOP_WATCH === 'heap') writeAllocationSample(label);
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
          `request in the server: p50 ${ms(inServer.percentile(50))} p99 ${ms(inServer.percentile(99))} max ${ms(inServer.max)} ms; ` +
          `heap ${(process.memoryUsage().heapUsed / 2 ** 20).toFixed(0)} MB`,
      );
      console.error(`  [${label} slowest requests] ${spans.slowestDuringGc()}`);
      const gc = spans.gc.map((span) => ({ ...span, label: span.kind }));
      console.error(`  [${label} slow requests] ${slowRequestCauses(spans.requests, gc, turns)}`);
    },
  };
}

interface Span {
  start: number;
  end: number;
}

/** Each request's and each garbage collection's time span (ms, performance.now()'s clock) since the last reset. */
class Spans {
  requests: Span[] = [];
  gc: (Span & { kind: string })[] = [];

  reset(): void {
    this.requests = [];
    this.gc = [];
  }

  /** How many of the slowest 1% of requests had a garbage collection within them, by kind. */
  slowestDuringGc(): string {
    const slowest = [...this.requests].sort((a, b) => b.end - b.start - (a.end - a.start));
    const tail = slowest.slice(0, Math.max(1, Math.ceil(slowest.length / 100)));
    if (tail.length === 0 || slowest.length < 100) return 'too few requests';
    const byKind = new Map<string, number>();
    let during = 0;
    for (const request of tail) {
      const overlapping = this.gc.filter((gc) => gc.start < request.end && gc.end > request.start);
      if (overlapping.length > 0) during += 1;
      for (const kind of new Set(overlapping.map((gc) => gc.kind))) byKind.set(kind, (byKind.get(kind) ?? 0) + 1);
    }
    const floorMs = tail.at(-1)!.end - tail.at(-1)!.start;
    const kinds = [...byKind].map(([kind, count]) => `${kind} ${count}`).join(', ');
    return (
      `${tail.length} of ${slowest.length} took ${floorMs.toFixed(2)} ms or more in the server; ` +
      `${during} of them had a GC within them${kinds ? ` (${kinds})` : ''}`
    );
  }
}

/** Every HTTP server of this process records each request's time from 'request' to its answer's 'finish' (ns). */
function timeRequests(spans: Spans): RecordableHistogram {
  const histogram = createHistogram();
  const emit = http.Server.prototype.emit;
  http.Server.prototype.emit = function (this: http.Server, event: string, ...args: unknown[]) {
    if (event === 'request') {
      const started = process.hrtime.bigint();
      const start = performance.now();
      (args[1] as http.ServerResponse).once('finish', () => {
        histogram.record(Math.max(1, Number(process.hrtime.bigint() - started)));
        spans.requests.push({ start, end: performance.now() });
      });
    }
    return emit.apply(this, [event, ...args] as Parameters<typeof emit>);
  } as typeof emit;
  return histogram;
}

let session: Session | null = null;

/** With BENCH_LOOP_WATCH=heap: V8's sampling heap profiler, from reset() on (what the phase allocates). */
function startAllocationSampling(): void {
  session?.disconnect();
  session = new Session();
  session.connect();
  session.post('HeapProfiler.startSampling', {
    samplingInterval: 4096,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: true,
  });
}

/** Writes the phase's allocation sample (.heapprofile, which Chrome's DevTools open) to the temporary folder. */
function writeAllocationSample(label: string): void {
  const file = path.join(os.tmpdir(), 'ferrum-bench-profiles', `${label.replace(/\W+/g, '-')}.heapprofile`);
  session?.post('HeapProfiler.stopSampling', (error, result) => {
    if (error) return;
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, JSON.stringify(result.profile));
    console.error(`  allocation sample: ${file}`);
  });
}
