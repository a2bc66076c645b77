import { describe, expect, it } from 'vitest';
import { eventually } from '../helpers/eventually.js';
import { boundFrom, deadlineAfter, machineSlowness, measureSlowness, scaled } from '../helpers/pace.js';

describe('waiting bounds that follow the machine', () => {
  it('measures the slowness between 1 (at rest) and 8, and the run shares one figure', () => {
    const measured = measureSlowness();
    expect(measured).toBeGreaterThanOrEqual(1);
    expect(measured).toBeLessThanOrEqual(8);
    // vitest.config.ts measured it once for the run and handed it down.
    expect(machineSlowness()).toBe(Number(process.env.FERRUM_TEST_SLOWNESS));
  });

  it('scales a bound by the slowness, and derives one from a measured duration with a floor', () => {
    const slowness = machineSlowness();
    expect(scaled(1000)).toBe(Math.round(1000 * slowness));
    // Five times a 4 s start, as eventually() will scale it back: 20 s of wall-clock time.
    expect(boundFrom(4000, { floorMs: 1000 }) * slowness).toBeCloseTo(20_000, -1);
    expect(boundFrom(10, { floorMs: 1000 })).toBe(1000);
  });

  it('eventually() gives up after the scaled bound and says which', async () => {
    await expect(eventually(() => false, 50, 'never')).rejects.toThrow(/^never not reached within \d+ ms$/);
  });

  it('a deadline measures the machine again when it seems to pass, and moves out if it grew slower', async () => {
    // eslint-disable-next-line no-restricted-syntax -- this test measures real elapsed time: sleeping is the point
    const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
    const grewSlower = deadlineAfter(20, () => machineSlowness() * 1000);
    expect(grewSlower.passed()).toBe(false);
    await wait(scaled(20) + 10);
    expect(grewSlower.passed()).toBe(false);
    expect(grewSlower.boundMs).toBe(Math.round(20 * machineSlowness() * 1000));

    let measured = 0;
    const sameAsBefore = deadlineAfter(20, () => {
      measured++;
      return 1;
    });
    await wait(scaled(20) + 10);
    expect(sameAsBefore.passed()).toBe(true);
    expect(sameAsBefore.passed()).toBe(true);
    expect(measured).toBe(1);
    expect(sameAsBefore.boundMs).toBe(scaled(20));
  });
});
