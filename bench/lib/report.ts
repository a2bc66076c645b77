// The one way benchmarks hand their figures over: `figure()` prints a figure and, when the bench
// runner (scripts/bench.mjs) set BENCH_REPORT_FILE, appends it as a JSON line the runner collects.
// `SMOKE` (BENCH_SMOKE=1 or --smoke) asks for a run of a few seconds that only proves the bench works.
import fs from 'node:fs';

export const SMOKE = process.env.BENCH_SMOKE === '1' || process.argv.includes('--smoke');

/** A size from the environment variable `name` when set, else `full`, or `smoke` in a smoke run. */
export function sized(name: string, full: number, smoke: number): number {
  const set = process.env[name];
  if (set !== undefined && set !== '') return Number(set);
  return SMOKE ? smoke : full;
}

export interface FigureOptions {
  /** Whether a higher or a lower value is better (regressions are judged by it). */
  better: 'higher' | 'lower';
  /** The value to reach (at least when higher is better, at most when lower is). */
  target?: number;
  /**
   * An absolute value an issue states for this figure (say `p99 < 50 ms`): printed and kept beside
   * it, but not the verdict, since absolute figures do not carry from one machine to another; the
   * verdict is the `target` of the ratio figure printed next to it.
   */
  goal?: number;
  /** What the figure is a ratio to, or measured beside, in the same run. */
  reference?: string;
  /**
   * A floor's or a reference's own rate, which says how fast this machine is (the targets are
   * ratios to such figures): the report's header lists these.
   */
  machine?: boolean;
}

export interface Figure extends FigureOptions {
  name: string;
  value: number;
  unit: string;
  met?: boolean;
  goalMet?: boolean;
}

/** The units of a ratio: a target may be set on these only. */
export const RATIO_UNITS = ['x', '×'];

/**
 * Refuses an absolute target (milliseconds, ops/s, ...): absolute figures do not carry from one
 * machine to another, so a target is a ratio to a floor or reference of the same run, named.
 */
export function checkTarget(name: string, unit: string, options: FigureOptions): void {
  if (options.target === undefined) return;
  if (!RATIO_UNITS.includes(unit))
    throw new Error(
      `figure "${name}": a target in ${unit} is absolute; make the figure a ratio to a reference measured in the same run`,
    );
  if (!options.reference) throw new Error(`figure "${name}": a ratio target needs the reference it is a ratio to`);
}

/** Prints one figure and records it for the runner. */
export function figure(name: string, value: number, unit: string, options: FigureOptions): Figure {
  checkTarget(name, unit, options);
  const reaches = (bound: number) => (options.better === 'higher' ? value >= bound : value <= bound);
  const met = options.target === undefined ? undefined : reaches(options.target);
  const goalMet = options.goal === undefined ? undefined : reaches(options.goal);
  const entry: Figure = {
    name,
    value,
    unit,
    ...options,
    ...(met === undefined ? {} : { met }),
    ...(goalMet === undefined ? {} : { goalMet }),
  };
  const sign = options.better === 'higher' ? '>=' : '<=';
  const target = options.target === undefined ? '' : `, target ${sign} ${options.target}: ${met ? 'met' : 'NOT met'}`;
  const goal =
    options.goal === undefined
      ? ''
      : `, the issue's absolute ${sign} ${options.goal} ${unit}: ${goalMet ? 'met' : 'not met'} (not the verdict)`;
  const reference = options.reference ? `, vs. ${options.reference}` : '';
  console.log(`  figure  ${name}: ${formatValue(value)} ${unit}${target}${goal}${reference}`);
  const file = process.env.BENCH_REPORT_FILE;
  if (file) fs.appendFileSync(file, `${JSON.stringify(entry)}\n`);
  return entry;
}

export function formatValue(value: number): string {
  const digits = Math.abs(value) >= 100 ? 0 : Math.abs(value) >= 10 ? 1 : 2;
  return value.toLocaleString('en-US', { maximumFractionDigits: digits });
}
