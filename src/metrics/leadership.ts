import { Gauge, type Registry } from 'prom-client';
import type { LeadershipReport } from '../core/leader-loop.js';

/**
 * ferrum_leader{loop}: 1 while this process holds a loop's leader lease, else 0. Which controller
 * holds it is the scrape target's own `instance` label: no host or pid label, which would start a
 * new series on every restart.
 */
export class LeadershipGauge implements LeadershipReport {
  private readonly gauge: Gauge<'loop'>;

  constructor(registry: Registry) {
    this.gauge = new Gauge({
      name: 'ferrum_leader',
      help: 'Whether this controller holds the leader lease of a background loop (1) or not (0)',
      labelNames: ['loop'] as const,
      registers: [registry],
    });
  }

  report(loop: string, held: boolean): void {
    this.gauge.set({ loop }, held ? 1 : 0);
  }
}
