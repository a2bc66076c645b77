/**
 * Waiting bounds that follow the machine. The suite's bounds were written for a machine at
 * rest; on one busy with other work (another copy of the suite, other builds) everything takes
 * longer, so each bound is multiplied by how much slower the machine runs now, measured rather
 * than guessed: a CPU-bound reference loop's wall-clock time over the CPU time it was given
 * (1 at rest; 3 when other work holds the cores two thirds of the time). vitest.config.ts
 * measures it once per run and hands it to every worker as FERRUM_TEST_SLOWNESS (set that to
 * choose it yourself).
 */

const MAX_SLOWNESS = 8;
const SAMPLE_CPU_MS = 20;
const SAMPLES = 5;

let slowness: number | undefined;

/** How many times slower than at rest the machine runs now (1 to 8), measured once per process. */
export function machineSlowness(): number {
  slowness ??= Number(process.env.FERRUM_TEST_SLOWNESS) || measureSlowness();
  return slowness;
}

/** Times the reference loop: the median over a few samples of wall-clock time per CPU millisecond. */
export function measureSlowness(): number {
  const ratios = Array.from({ length: SAMPLES }, sampleRatio).sort((a, b) => a - b);
  const median = ratios[Math.floor(SAMPLES / 2)]!;
  return Math.min(Math.max(1, Math.round(median * 10) / 10), MAX_SLOWNESS);
}

function sampleRatio(): number {
  const wallStart = performance.now();
  const cpuStart = process.cpuUsage();
  let sink = 0;
  for (;;) {
    for (let i = 0; i < 10_000; i++) sink += Math.sqrt(i);
    const cpu = process.cpuUsage(cpuStart);
    const cpuMs = (cpu.user + cpu.system) / 1000;
    if (cpuMs >= SAMPLE_CPU_MS) return sink >= 0 ? (performance.now() - wallStart) / cpuMs : 1;
  }
}

/** A bound written for a machine at rest, for the machine as it runs now. */
export function scaled(ms: number): number {
  return Math.round(ms * machineSlowness());
}

/** A waiting bound running from now: see deadlineAfter. */
export interface Deadline {
  /** Whether the bound has passed (re-measuring the machine the first time it seems to). */
  passed(): boolean;
  /** The bound in ms of wall-clock time, as it stands now. */
  readonly boundMs: number;
}

/**
 * A deadline `ms` from now (a bound at rest, scaled). The run's slowness was measured when it
 * started; a second copy of the suite starting later makes the machine slower than that. So the
 * first time the deadline seems to have passed, the slowness is measured again, and if it grew
 * the deadline moves out to match, once. Costs nothing while the wait ends in time.
 */
export function deadlineAfter(ms: number, measureNow: () => number = measureSlowness): Deadline {
  const started = performance.now();
  let boundMs = scaled(ms);
  let remeasured = false;
  return {
    get boundMs() {
      return boundMs;
    },
    passed() {
      if (performance.now() - started <= boundMs || remeasured) return performance.now() - started > boundMs;
      remeasured = true;
      boundMs = Math.max(boundMs, Math.round(ms * measureNow()));
      return performance.now() - started > boundMs;
    },
  };
}

/**
 * A bound for eventually() (which multiplies it by the slowness) from the measured duration of
 * a like operation on this machine now (a cluster's restart from its first start, a container's
 * removal from its start): `times` that duration, as it would take at rest, never under `floorMs`.
 */
export function boundFrom(measuredMs: number, { times = 5, floorMs }: { times?: number; floorMs: number }): number {
  return Math.max(Math.round((measuredMs * times) / machineSlowness()), floorMs);
}

/** Runs `operation` and says how long it took, in ms. */
export async function timed<T>(operation: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = performance.now();
  const value = await operation();
  return { value, ms: performance.now() - started };
}
