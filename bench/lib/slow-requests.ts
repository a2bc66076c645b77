// With BENCH_LOOP_WATCH, what a bench server's slow requests (over SLOW_FACTOR times the phase's
// median time in the server) had beside them: the event loop's stalls (a 1 ms ticker that ran
// late by STALL_MS or more), garbage collections, timer callbacks that held the loop, and the
// passes of background leader loops. Whatever is left over waited on Redis, the socket or the
// machine (the load generator prints Redis's own latency and its own loop beside it).
import { LeaderLoop } from '../../src/core/leader-loop.js';

export interface Span {
  start: number;
  end: number;
}

export interface Labelled extends Span {
  label: string;
}

const SLOW_FACTOR = 5;
const STALL_MS = 2;
/** A timer callback that runs this long is logged with its label. */
const LONG_TIMER_MS = 0.5;

/** The loop's stalls, long timer callbacks and background passes since the last reset (performance.now()'s clock). */
export class TurnLog {
  stalls: Span[] = [];
  timers: Labelled[] = [];
  passes: Labelled[] = [];

  constructor() {
    let last = performance.now();
    setInterval(() => {
      const now = performance.now();
      if (now - last >= 1 + STALL_MS) this.stalls.push({ start: last + 1, end: now });
      last = now;
    }, 1).unref();
    timeTimers(this);
    timePasses(this);
  }

  reset(): void {
    this.stalls = [];
    this.timers = [];
    this.passes = [];
  }
}

/** Every setTimeout and setInterval callback of the process, timed; the long ones logged. */
function timeTimers(turns: TurnLog): void {
  for (const name of ['setTimeout', 'setInterval'] as const) {
    const original = globalThis[name] as (...args: unknown[]) => NodeJS.Timeout;
    const timed = (callback: (...args: unknown[]) => void, ...rest: unknown[]) => {
      if (typeof callback !== 'function') return original(callback, ...rest);
      const label = () =>
        `${name}(${callback.name || callback.toString().replace(/\s+/g, ' ').slice(0, 60)}, ${String(rest[0])})`;
      return original(
        function (this: unknown, ...args: unknown[]) {
          const start = performance.now();
          try {
            callback.apply(this, args);
          } finally {
            const end = performance.now();
            if (end - start >= LONG_TIMER_MS) turns.timers.push({ start, end, label: label() });
          }
        },
        ...rest,
      );
    };
    Object.assign(globalThis, { [name]: Object.assign(timed, original) });
  }
}

/** Each background leader loop's pass, from its lease claim to its work's end. */
function timePasses(turns: TurnLog): void {
  const runOnce = LeaderLoop.prototype.runOnce;
  LeaderLoop.prototype.runOnce = async function (this: LeaderLoop) {
    const start = performance.now();
    try {
      return await runOnce.call(this);
    } finally {
      const name = (this as unknown as { options: { name: string } }).options.name;
      turns.passes.push({ start, end: performance.now(), label: name });
    }
  };
}

const overlapping = <T extends Span>(spans: T[], request: Span) =>
  spans.filter((span) => span.start < request.end && span.end > request.start);

const median = (requests: Span[]) =>
  requests.map((request) => request.end - request.start).sort((a, b) => a - b)[Math.floor(requests.length / 2)] ?? 0;

/** What the slow requests overlapped, counted by cause, and a few of them in full. */
export function slowRequestCauses(requests: Span[], gc: Labelled[], turns: TurnLog): string {
  const threshold = SLOW_FACTOR * median(requests);
  const slow = requests.filter((request) => request.end - request.start > threshold);
  if (slow.length === 0) return `none over ${threshold.toFixed(2)} ms`;
  const causes = new Map<string, number>();
  const count = (cause: string) => causes.set(cause, (causes.get(cause) ?? 0) + 1);
  const examples: string[] = [];
  for (const request of slow) {
    const beside = [
      ...overlapping(gc, request).map((span) => `GC ${span.label} ${(span.end - span.start).toFixed(1)} ms`),
      ...overlapping(turns.timers, request).map((span) => `${span.label} ${(span.end - span.start).toFixed(1)} ms`),
      ...overlapping(turns.passes, request).map((span) => `pass of ${span.label}`),
    ];
    const stalled = overlapping(turns.stalls, request).reduce((sum, span) => sum + span.end - span.start, 0);
    if (stalled > 0) beside.push(`loop stalled ${stalled.toFixed(1)} ms`);
    for (const cause of new Set(beside.map((text) => text.replace(/ [\d.]+ ms$/, '')))) count(cause);
    if (beside.length === 0) count('nothing seen in the server (Redis, the socket or the machine)');
    if (examples.length < 5)
      examples.push(`${(request.end - request.start).toFixed(1)} ms: ${beside.join('; ') || 'nothing seen'}`);
  }
  const tally = [...causes]
    .sort((a, b) => b[1] - a[1])
    .map(([cause, n]) => `${cause} ${n}`)
    .join(', ');
  return `${slow.length} of ${requests.length} over ${threshold.toFixed(2)} ms (${SLOW_FACTOR}x the median); beside them: ${tally}; e.g. ${examples.join(' | ')}`;
}
