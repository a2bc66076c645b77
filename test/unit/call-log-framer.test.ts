import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { CallLogFramer, LOG_HOLD_MS, type CallLogWatch } from '../../runner/functions/call-log-framer.js';

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
function framerAfter(
  frame: string | null,
  call: string,
  output: string,
  watch: CallLogWatch | null = null,
): CallLogFramer {
  const framer = new CallLogFramer(frame, SETTLE_MS, () => {}, watch);
  framer.open(call);
  framer.push(Buffer.from(output));
  return framer;
}

function watched() {
  return { endedByBound: vi.fn(), outputAfterEnd: vi.fn() };
}

describe('CallLogFramer', () => {
  beforeEach(() =>
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setImmediate', 'clearImmediate', 'Date'] }),
  );
  afterEach(() => vi.useRealTimers());

  it("a framed container: a call's log ends when the next call's frame line arrives, however late its lines come", async () => {
    const framer = framerAfter('FRAME', 'first', '\nFRAME=first\nfirst line\n');
    const first = framer.answered('first');
    await vi.advanceTimersByTimeAsync(LOG_HOLD_MS / 2);
    expect(await settled(first)).toBeUndefined();
    framer.push(Buffer.from('relayed long after the answer\n'));
    framer.open('second');
    framer.push(Buffer.from('\nFRAME=second\nsecond line\n'));
    expect(await settled(first)).toBe('first line\nrelayed long after the answer\n');
    const second = framer.answered('second');
    framer.open('third');
    framer.push(Buffer.from('late second line\n\nFRAME=third\n'));
    expect(await settled(second)).toBe('second line\nlate second line\n');
  });

  it("a new container: its first frame line, relayed after the next call was sent, ends no later call's log", async () => {
    const framer = new CallLogFramer('FRAME', SETTLE_MS);
    framer.open('first');
    const first = framer.answered('first');
    framer.open('second');
    framer.push(Buffer.from('\nFRAME=first\nline of first\n'));
    expect(await settled(first)).toBeUndefined();
    const second = framer.answered('second');
    framer.push(Buffer.from('\nFRAME=second\nline of second\n'));
    expect(await settled(first)).toBe('line of first\n');
    framer.end();
    expect(await settled(second)).toBe('line of second\n');
  });

  it('a framed container: a call answered before its frame line arrives still gets its lines', async () => {
    const framer = framerAfter('FRAME', 'first', 'FRAME=first\n');
    framer.open('second');
    const second = framer.answered('second');
    await vi.advanceTimersByTimeAsync(LOG_HOLD_MS / 2);
    framer.push(Buffer.from('FRAME=second\nlate line\n'));
    expect(await settled(second)).toBeUndefined();
    framer.end();
    expect(await settled(second)).toBe('late line\n');
  });

  it("a framed container that stays idle ends its last call's log at the bound, and tells of output that came after", async () => {
    const watch = watched();
    const framer = framerAfter('FRAME', 'idle', 'FRAME=idle\nin time\n', watch);
    const log = framer.answered('idle');
    await vi.advanceTimersByTimeAsync(LOG_HOLD_MS - 1);
    expect(await settled(log)).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);
    expect(await settled(log)).toBe('in time\n');
    expect(watch.endedByBound).toHaveBeenCalledTimes(1);
    framer.push(Buffer.from('too late\nlater still\n'));
    expect(watch.outputAfterEnd.mock.calls).toEqual([['idle']]);
    // The next call's output is its own again.
    framer.open('next');
    framer.push(Buffer.from('FRAME=next\nnext line\n'));
    const next = framer.answered('next');
    framer.end();
    expect(await settled(next)).toBe('next line\n');
    expect(watch.outputAfterEnd).toHaveBeenCalledTimes(1);
  });

  it('a function that writes no frame lines though asked: its first call waits for one to the bound, later ones settle', async () => {
    const watch = watched();
    const framer = framerAfter('FRAME', 'first', 'first line\n', watch);
    const first = framer.answered('first');
    await vi.advanceTimersByTimeAsync(LOG_HOLD_MS);
    expect(await settled(first)).toBe('first line\n');
    framer.open('second');
    framer.push(Buffer.from('second line\n'));
    const second = framer.answered('second');
    await vi.advanceTimersByTimeAsync(SETTLE_MS);
    expect(await settled(second)).toBe('second line\n');
    expect(watch.endedByBound).not.toHaveBeenCalled();
  });

  it('an unframed container settles its calls SETTLE_MS after the answer', async () => {
    const framer = framerAfter(null, 'only', 'said\n');
    const log = framer.answered('only');
    await vi.advanceTimersByTimeAsync(SETTLE_MS);
    expect(await settled(log)).toBe('said\n');
  });

  it('a settle wait the process was held up through is given again, so late output still reaches its call', async () => {
    const framer = framerAfter(null, 'busy', '');
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
