import { describe, expect, it } from 'vitest';
import { BACKGROUND_LOOPS } from '../../controller/loops.js';
import { loadConfig } from '../../src/core/config.js';

describe('the background loop table', () => {
  it('names each loop once (a name is also its lease)', () => {
    const names = BACKGROUND_LOOPS.map((loop) => loop.name);
    expect(new Set(names).size).toBe(names.length);
  });

  it('gives every leader loop its interval from the configuration', () => {
    const config = loadConfig({});
    for (const loop of BACKGROUND_LOOPS.filter((row) => row.lease === 'leader')) {
      expect(loop.intervalMs(config), loop.name).toBeGreaterThan(0);
    }
  });
});
