import { describe, expect, it } from 'vitest';
import type { AutoscaleSettings } from '../../src/worker/clusters/cluster-types.js';
import { decideScaling, nextEwma, wantedInstances } from '../../src/worker/clusters/instances/scaling-plan.js';

const settings = (over: Partial<AutoscaleSettings> = {}): AutoscaleSettings => ({
  provider: 'docker',
  disable: false,
  runners_min: 0,
  runners_max: 10,
  runners_per_instance: 2,
  ...over,
});

describe('the scaling plan', () => {
  it('smooths demand and lets an idle cluster reach zero', () => {
    expect(nextEwma(0, 4, 0.5)).toBe(2);
    expect(nextEwma(2, 0, 0.5)).toBe(1);
    let ewma = 1;
    for (let i = 0; i < 6; i++) ewma = nextEwma(ewma, 0, 0.5);
    expect(ewma).toBe(0);
  });

  it('wants whole instances within runners_min and runners_max', () => {
    expect(wantedInstances(0, settings())).toBe(0);
    expect(wantedInstances(3, settings())).toBe(2);
    expect(wantedInstances(100, settings())).toBe(5);
    expect(wantedInstances(0, settings({ runners_min: 3 }))).toBe(2);
    expect(wantedInstances(100, settings({ runners_max: 3 }))).toBe(1);
  });

  it('launches at once but retires one instance only after a lasting surplus', () => {
    expect(decideScaling({ wanted: 3, current: 1, surplusSince: 0, now: 1000, cooldownMs: 500 })).toEqual({
      launch: 2,
      retire: 0,
      surplusSince: 0,
    });
    const first = decideScaling({ wanted: 0, current: 2, surplusSince: 0, now: 1000, cooldownMs: 500 });
    expect(first).toEqual({ launch: 0, retire: 0, surplusSince: 1000 });
    expect(decideScaling({ wanted: 0, current: 2, surplusSince: 1000, now: 1400, cooldownMs: 500 }).retire).toBe(0);
    expect(decideScaling({ wanted: 0, current: 2, surplusSince: 1000, now: 1500, cooldownMs: 500 })).toEqual({
      launch: 0,
      retire: 1,
      surplusSince: 1500,
    });
    // Demand that comes back ends the surplus: a short lull retires nothing.
    expect(decideScaling({ wanted: 2, current: 2, surplusSince: 1000, now: 1400, cooldownMs: 500 }).surplusSince).toBe(
      0,
    );
  });
});
