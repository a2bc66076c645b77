import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { CallLogFramer } from '../../runner/functions/call-log-framer.js';

const SETTLE_MS = 10;

/** Whether `promise` has settled, and with what (without waiting for it). */
async function settled(promise: Promise<string>): Promise<string | undefined> {
  let value: string | undefined;
  void promise.then((text) => (value = text));
  // Fake immediates (the framer ends a log after one read) run once the clock moves.
  await vi.advanceTimersByTimeAsync(1);
  return value;
}

/** A framer (frame variable `frame`, or none) with call `call` open and `output` read from the container. */
function framerAfter(frame: string | null, call: string, output: string): CallLogFramer {
  const framer = new CallLogFramer(frame, SETTLE_MS);
  framer.open(call);
  framer.push(Buffer.from(output));
  return framer;
}

describe('CallLogFramer', () => {
  beforeEach(() =>
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setImmediate', 'clearImmediate', 'Date'] }),
  );
  afterEach(() => vi.useRealTimers());

  it('a framed container: a call answered before its frame line arrives waits for it, then settles', async () => {
    const framer = framerAfter('FRAME', 'first', 'FRAME=first\nfirst line\n');
    const first = framer.answered('first');
    await vi.advanceTimersByTimeAsync(SETTLE_MS);
    expect(await settled(first)).toBe('first line\n');

    framer.open('second');
    const second = framer.answered('second');
    await vi.advanceTimersByTimeAsync(SETTLE_MS * 20);
    expect(await settled(second)).toBeUndefined();
    framer.push(Buffer.from('FRAME=second\nlate line\n'));
    await vi.advanceTimersByTimeAsync(SETTLE_MS);
    expect(await settled(second)).toBe('late line\n');
  });

  it('a framed container: a frame line that never comes ends the wait at its bound', async () => {
    const framer = framerAfter('FRAME', 'first', 'FRAME=first\n');
    await vi.advanceTimersByTimeAsync(0);
    framer.open('lost');
    const lost = framer.answered('lost');
    await vi.advanceTimersByTimeAsync(5000);
    expect(await settled(lost)).toBe('');
  });

  it('an unframed container settles its calls SETTLE_MS after the answer', async () => {
    const framer = framerAfter(null, 'only', 'said\n');
    const log = framer.answered('only');
    await vi.advanceTimersByTimeAsync(SETTLE_MS);
    expect(await settled(log)).toBe('said\n');
  });

  it('a settle wait the process was held up through is given again, so late output still reaches its call', async () => {
    const framer = framerAfter('FRAME', 'busy', 'FRAME=busy\n');
    const log = framer.answered('busy');
    // The event loop was held up: the clock is far past the settle time when the timer runs.
    vi.setSystemTime(Date.now() + SETTLE_MS * 10);
    await vi.advanceTimersByTimeAsync(SETTLE_MS);
    expect(await settled(log)).toBeUndefined();
    framer.push(Buffer.from('relayed late\n'));
    await vi.advanceTimersByTimeAsync(SETTLE_MS);
    expect(await settled(log)).toBe('relayed late\n');
  });

  it('a process held up again and again ends the log after a few more waits', async () => {
    const framer = new CallLogFramer(null, SETTLE_MS);
    framer.open('starved');
    const log = framer.answered('starved');
    let ended: string | undefined;
    void log.then((text) => (ended = text));
    for (let wait = 0; wait < 10 && ended === undefined; wait++) {
      vi.setSystemTime(Date.now() + SETTLE_MS * 10);
      await vi.advanceTimersByTimeAsync(SETTLE_MS + 1);
    }
    expect(ended).toBe('');
  });

  it('calls answered back to back share one settle timer, and each still settles on time', async () => {
    const framer = new CallLogFramer(null, SETTLE_MS);
    const logs: Promise<string>[] = [];
    for (const call of ['a', 'b', 'c']) {
      framer.open(call);
      framer.push(Buffer.from(`${call} said\n`));
      logs.push(framer.answered(call));
      await vi.advanceTimersByTimeAsync(1);
    }
    expect(vi.getTimerCount()).toBe(1);
    await vi.advanceTimersByTimeAsync(SETTLE_MS);
    expect(await Promise.all(logs)).toEqual(['a said\n', 'b said\n', 'c said\n']);
    expect(vi.getTimerCount()).toBe(0);
  });
});
