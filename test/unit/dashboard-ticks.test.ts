import { describe, expect, it } from 'vitest';
// The dashboard's browser module: JavaScript with JSDoc types (web/tsconfig.json; allowJs here).
import { niceTicks } from '../../web/ticks.js';

const TARGET_MAX_TICKS = 6;

describe("the dashboard charts' axis ticks", () => {
  it('reads 0…1 for an empty chart', () => {
    expect(niceTicks(0)).toEqual({ top: 1, ticks: [0, 1] });
  });

  it('steps 1, 2 or 5 times a power of ten, topped at or above the largest value', () => {
    expect(niceTicks(3)).toEqual({ top: 3, ticks: [0, 1, 2, 3] });
    expect(niceTicks(7)).toEqual({ top: 8, ticks: [0, 2, 4, 6, 8] });
    expect(niceTicks(8)).toEqual({ top: 8, ticks: [0, 2, 4, 6, 8] });
    expect(niceTicks(37)).toEqual({ top: 40, ticks: [0, 10, 20, 30, 40] });
    expect(niceTicks(1234).ticks).toEqual([0, 500, 1000, 1500]);
  });

  it('gives whole, evenly spaced ticks whose last one covers the value, for any count', () => {
    for (let max = 0; max <= 5000; max += 7) {
      const { top, ticks } = niceTicks(max);
      expect(top).toBeGreaterThanOrEqual(max);
      expect(ticks[0]).toBe(0);
      expect(ticks[ticks.length - 1]).toBe(top);
      expect(ticks.length).toBeGreaterThanOrEqual(2);
      expect(ticks.length).toBeLessThanOrEqual(TARGET_MAX_TICKS);
      const step = ticks[1]! - ticks[0]!;
      expect(Number.isInteger(step)).toBe(true);
      ticks.forEach((tick: number, i: number) => expect(tick).toBe(i * step));
    }
  });
});
