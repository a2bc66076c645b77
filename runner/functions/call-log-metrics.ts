import type { Logger } from 'pino';
import { Counter, type Registry } from 'prom-client';
import { perRegistry } from '../../src/metrics/per-registry.js';
import type { CallLogWatch } from './call-log-framer.js';

interface Counters {
  endedByBound: Counter;
  outputAfterEnd: Counter;
}

function countersOf(registry: Registry): Counters {
  return perRegistry(registry, 'hot-call-logs', () => ({
    endedByBound: new Counter({
      name: 'ferrum_function_logs_ended_by_bound_total',
      help: "Hot calls whose log was ended by its wait after the answer, the container serving no next call (not by the next call's frame line or the container's end)",
      registers: [registry],
    }),
    outputAfterEnd: new Counter({
      name: 'ferrum_function_logs_cut_total',
      help: "Hot calls whose stderr kept coming after their log had ended: that output is in no call's log",
      registers: [registry],
    }),
  }));
}

/** Counts, on a runner's metrics, the hot call logs that the container's output did not end; warns of output lost. */
export class CallLogMetrics implements CallLogWatch {
  private readonly counters: Counters;

  constructor(
    registry: Registry,
    private readonly log?: Logger,
  ) {
    this.counters = countersOf(registry);
  }

  endedByBound(): void {
    this.counters.endedByBound.inc();
  }

  outputAfterEnd(callId: string): void {
    this.counters.outputAfterEnd.inc();
    this.log?.warn(
      { call: callId },
      "a hot container's stderr for a call came after the call's log had ended: it is in no call's log",
    );
  }
}
