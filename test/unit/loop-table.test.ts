import { describe, expect, it } from 'vitest';
import { startLoops, type LoopEnv, type LoopRow } from '../../controller/loop-runner.js';
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

describe('the loop runner', () => {
  const env = {} as LoopEnv; // the rows below read nothing from it

  function row(name: string, events: string[], fails = false): LoopRow {
    return {
      name,
      lease: 'none',
      intervalMs: () => null,
      start: () => {
        if (fails) throw new Error(`${name} would not start`);
        events.push(`start ${name}`);
        return { stop: () => void events.push(`stop ${name}`) };
      },
    };
  }

  it('starts the rows in order and stops them all', async () => {
    const events: string[] = [];
    const loops = await startLoops([row('a', events), row('b', events)], env);
    await loops.stop();
    expect(events).toEqual(['start a', 'start b', 'stop a', 'stop b']);
  });

  it('stops the loops already started when one fails to start', async () => {
    const events: string[] = [];
    await expect(startLoops([row('a', events), row('b', events, true), row('c', events)], env)).rejects.toThrow(
      'b would not start',
    );
    expect(events).toEqual(['start a', 'stop a']);
  });
});
