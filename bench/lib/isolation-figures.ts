// The figures every isolation scenario gives for the victim's cache GET: its p99 under attack as
// a multiple of its p99 alone in the same run (the verdict, which holds on any machine), and the
// p99 itself beside the issue's absolute 50 ms (kept, but not the verdict).
import os from 'node:os';
import { figure } from './report.js';
import type { Latency } from './victim-gets.js';
import { describeCpu, type CpuShare } from './victim-under-attack.js';

/**
 * The most the victim's GET p99 under attack may be, as a multiple of its p99 alone. On the quiet
 * machine of the 11-26 report, alone was 2 ms, so 5x is 10 ms there: tighter than the issue's 50 ms.
 */
export const VICTIM_P99_TARGET = 5;
/** The issue's absolute bound on the victim's GET p99 (issue 44): printed, not the verdict. */
const VICTIM_P99_GOAL_MS = 50;

export const loadAverage = () =>
  os
    .loadavg()
    .map((value) => value.toFixed(1))
    .join(' ');

/** Prints the victim's line for `scenario` (e.g. `under storage flood`) and its two figures. */
export function victimFigures(scenario: string, alone: Latency, during: Latency, cpu?: CpuShare): void {
  // No answer at all under attack (or alone) is no ratio, and so not a met target.
  const ratio = alone.p99 > 0 && during.rps > 0 ? during.p99 / alone.p99 : Number.NaN;
  console.log(
    `victim cache GET ${scenario}: p50 ${during.p50.toFixed(1)} ms, p99 ${during.p99.toFixed(1)} ms = ${ratio.toFixed(1)}x its p99 alone (${alone.p99.toFixed(1)} ms; target <= ${VICTIM_P99_TARGET}x, the verdict), ` +
      `max ${during.max.toFixed(1)} ms, ${Math.round(during.rps)} req/s; issue 44's absolute p99 < ${VICTIM_P99_GOAL_MS} ms ${during.p99 < VICTIM_P99_GOAL_MS ? 'met' : 'not met'}; ` +
      `${cpu ? `${describeCpu(cpu)}; ` : ''}load average ${loadAverage()}`,
  );
  figure(`isolation victim cache GET p99 ${scenario}`, during.p99, 'ms', { better: 'lower', goal: VICTIM_P99_GOAL_MS });
  figure(`isolation victim cache GET p99 ${scenario} / alone`, ratio, 'x', {
    better: 'lower',
    target: VICTIM_P99_TARGET,
    reference: `the same GET alone in this run, p99 ${alone.p99.toFixed(1)} ms`,
  });
  if (cpu) figure(`isolation server CPU ${scenario}`, cpu.server, '% of a core', { better: 'lower' });
}
