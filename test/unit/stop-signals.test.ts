import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { StopSignals, type StopSteps } from '../../controller/stop-signals.js';
import { interactiveDrainMs } from '../../controller/serve.js';
import { loadConfig } from '../../src/core/config.js';
import { eventually } from '../helpers/eventually.js';

/** Steps that finish only when told to, and what the signals did with them. */
function harness(log = pino({ level: 'silent' })) {
  const done: string[] = [];
  let finishStop = () => {};
  const steps: StopSteps = {
    stop: () => {
      done.push('stop');
      return new Promise((resolve) => (finishStop = resolve));
    },
    stopNow: () => {
      done.push('stopNow');
      return Promise.resolve();
    },
  };
  const printed: string[] = [];
  const exits: number[] = [];
  const signals = new StopSignals(steps, {
    log,
    timeoutMs: 60_000,
    drainMs: 5000,
    print: (line) => printed.push(line),
    exit: (code) => exits.push(code),
  });
  return { signals, done, printed, exits, finishStop: () => finishStop() };
}

describe('stop signals', () => {
  it('stops gracefully on the first signal and says so in one last line', async () => {
    const { signals, done, printed, exits, finishStop } = harness();
    signals.signal('SIGINT');
    expect(done).toEqual(['stop']);
    expect(exits).toEqual([]);
    finishStop();
    await eventually(() => exits.length === 1, 2000, 'exit');
    expect(exits).toEqual([0]);
    expect(printed).toHaveLength(1);
    expect(printed[0]).toMatch(/^Ferrum stopped after \d+\.\d s$/);
  });

  it('stops at once on the second signal, without waiting for the graceful stop', async () => {
    const { signals, done, printed, exits } = harness();
    signals.signal('SIGINT');
    signals.signal('SIGINT');
    signals.signal('SIGTERM');
    await eventually(() => exits.length === 1, 2000, 'exit');
    expect(done).toEqual(['stop', 'stopNow']);
    expect(exits).toEqual([0]);
    expect(printed).toEqual([expect.stringMatching(/^Ferrum stopped after /)]);
  });

  it('reports only errors once stopping at once: Redis stopping under open connections is no news', async () => {
    const lines: Array<{ level: number; msg: string }> = [];
    const log = pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line)) });
    const connection = log.child({ activity: 'redis connection commands' });
    const { signals, exits } = harness(log);
    signals.signal('SIGINT');
    connection.warn('still reported during the graceful stop');
    signals.signal('SIGINT');
    connection.warn('redis connection commands failing; backing off');
    connection.error('an error still shows');
    await eventually(() => exits.length === 1, 2000, 'exit');
    expect(lines.map((line) => line.msg)).toEqual([
      'shutting down',
      'still reported during the graceful stop',
      'stopping at once: the drain and requests in flight are not waited for',
      'an error still shows',
    ]);
  });

  it('exits non-zero after a fatal error, naming the code', async () => {
    const { signals, printed, exits, finishStop } = harness();
    signals.signal('redis-server failed', 1);
    finishStop();
    await eventually(() => exits.length === 1, 2000, 'exit');
    expect(exits).toEqual([1]);
    expect(printed[0]).toMatch(/\(exit code 1\)$/);
  });
});

describe('the drain of an interactive all-in-one', () => {
  it('is skipped at a terminal unless FERRUM_HTTP_DRAIN_MS asks for one', () => {
    expect(interactiveDrainMs(loadConfig({}), true)).toBe(0);
    expect(interactiveDrainMs(loadConfig({}), false)).toBe(5000);
    expect(interactiveDrainMs(loadConfig({ FERRUM_HTTP_DRAIN_MS: '3000' }), true)).toBe(3000);
    expect(interactiveDrainMs(loadConfig({ FERRUM_HTTP_DRAIN_MS: '3000' }), false)).toBe(3000);
  });
});
