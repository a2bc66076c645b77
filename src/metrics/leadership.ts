import os from 'node:os';
import { Gauge, type Registry } from 'prom-client';
import type { LeadershipReport } from '../core/leader-loop.js';

/**
 * ferrum_leader{loop, controller}: 1 while this process holds a loop's leader lease, else 0; the
 * controller label (host name and pid) says which controller runs the scheduler, the sweepers,
 * the autoscaler and push delivery.
 */
export class LeadershipGauge implements LeadershipReport {
  private readonly gauge: Gauge<'loop' | 'controller'>;
  private readonly controller = `${os.hostname()}:${process.pid}`;

  constructor(registry: Registry) {
    this.gauge = new Gauge({
      name: 'ferrum_leader',
      help: 'Whether this controller holds the leader lease of a background loop (1) or not (0)',
      labelNames: ['loop', 'controller'] as const,
      registers: [registry],
    });
  }

  report(loop: string, held: boolean): void {
    this.gauge.set({ loop, controller: this.controller }, held ? 1 : 0);
  }
}
