import { describe, expect, it } from 'vitest';
import { createProcessRegistry } from '../../src/metrics/registry.js';

/** The event loop's longest delay since the last scrape (a scrape starts the lag figures afresh). */
async function lagMaxSeconds(registry: ReturnType<typeof createProcessRegistry>): Promise<number> {
  const name = 'ferrum_nodejs_eventloop_lag_max_seconds';
  const line = (await registry.metrics()).split('\n').find((row) => row.startsWith(`${name} `));
  if (!line) throw new Error(`${name} is not in the registry's text`);
  return Number(line.split(' ')[1]);
}

function holdLoop(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until);
}

/** Two turns of the loop: a timers phase runs in between, whatever phase this is called in. */
async function turnLoop(): Promise<void> {
  for (let turn = 0; turn < 2; turn++) await new Promise((resolve) => setImmediate(resolve));
}

describe('event loop lag gauges', () => {
  it('catch a loop held up longer than their sampling interval', async () => {
    const registry = createProcessRegistry();
    try {
      // The monitor's first sample, due meanwhile, only starts its clock; the second measures the next hold.
      holdLoop(300);
      await turnLoop();
      holdLoop(300);
      await turnLoop();
      // Three of the 100 ms sampling intervals: one sample spans the hold.
      expect(await lagMaxSeconds(registry)).toBeGreaterThanOrEqual(0.25);
    } finally {
      registry.clear();
    }
  });
});
