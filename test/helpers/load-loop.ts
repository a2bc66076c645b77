// Fixed durations that are not waits for a condition (tests wait on conditions with eventually.ts).

/**
 * The interval between two rounds of a load or watch loop that runs beside a test (traffic
 * through a fail-over, a readiness watcher): the loop's own pace.
 */
export function loopInterval(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** A window a test measures a rate over (CPU or log lines during an outage): its length is the point. */
export function measuringWindow(ms: number): Promise<void> {
  return loopInterval(ms);
}
