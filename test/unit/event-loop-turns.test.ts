import { describe, expect, it } from 'vitest';
import { EventLoopTurns } from '../../src/core/event-loop-turns.js';
import { ForegroundPressure } from '../../src/core/foreground-pressure.js';

/** Counts turns of the event loop (one immediate a turn) until stopped. */
function turnCounter(): { now: () => number; stop: () => void } {
  let turns = 0;
  let running = true;
  const tick = () => {
    turns += 1;
    if (running) setImmediate(tick);
  };
  setImmediate(tick);
  return { now: () => turns, stop: () => (running = false) };
}

/** Starts `count` pieces of `bytes` of project 'p'; how many turns of the event loop they started in. */
async function turnsTaken(turns: EventLoopTurns, count: number, bytes: number): Promise<number> {
  const counter = turnCounter();
  const startedAt: number[] = [];
  await Promise.all(
    Array.from({ length: count }, () => turns.next('p', bytes).then(() => startedAt.push(counter.now()))),
  );
  counter.stop();
  return new Set(startedAt).size;
}

describe('EventLoopTurns', () => {
  it('starts one slice a turn: pieces of a whole slice each get a turn of their own', async () => {
    const turns = new EventLoopTurns({ sliceBytes: 100 });
    expect(await turnsTaken(turns, 3, 100)).toBe(3);
    expect(turns.size).toBe(0);
  });

  it('starts small pieces together, up to a slice', async () => {
    expect(await turnsTaken(new EventLoopTurns({ sliceBytes: 100 }), 10, 10)).toBe(1);
  });

  it('serves the waiting projects in turn, each in its order', async () => {
    const turns = new EventLoopTurns({ sliceBytes: 1 });
    const order: string[] = [];
    const enqueue = (project: string, piece: string) => turns.next(project, 1).then(() => order.push(piece));
    await Promise.all([
      enqueue('a', 'a1'),
      enqueue('a', 'a2'),
      enqueue('a', 'a3'),
      enqueue('b', 'b1'),
      enqueue('c', 'c1'),
    ]);
    expect(order).toEqual(['a1', 'b1', 'c1', 'a2', 'a3']);
  });

  it('counts what each piece costs beside its bytes: a slice starts few small pieces, not thousands', async () => {
    // 26 bytes of work a piece: four a slice, three slices.
    expect(await turnsTaken(new EventLoopTurns({ sliceBytes: 100, pieceBytes: 25 }), 12, 1)).toBe(3);
  });

  it("gives way to another project's requests on a busy loop: a slice at most every yieldMs", async () => {
    // A busy share of 0: the loop always counts as busy.
    const pressure = new ForegroundPressure(0);
    const turns = new EventLoopTurns({ sliceBytes: 1, yieldMs: 40 }, pressure);
    const startedAt: number[] = [];
    const pieces = Array.from({ length: 3 }, () =>
      turns.next('attacker', 1).then(() => {
        startedAt.push(performance.now());
        pressure.noteRequest('victim');
      }),
    );
    pressure.noteRequest('victim');
    await Promise.all(pieces);
    // Timers may fire a millisecond early by performance.now(); far from the 0 ms of no yield.
    expect(startedAt[1]! - startedAt[0]!).toBeGreaterThanOrEqual(35);
    expect(startedAt[2]! - startedAt[1]!).toBeGreaterThanOrEqual(35);
  });

  it("never slows a project's background work for its own requests, nor when no request came", async () => {
    const pressure = new ForegroundPressure(0);
    const turns = new EventLoopTurns({ sliceBytes: 1, yieldMs: 10_000 }, pressure);
    const own = Array.from({ length: 3 }, () => turns.next('p', 1).then(() => pressure.noteRequest('p')));
    pressure.noteRequest('p');
    await Promise.all(own);
    // No request at all since the last slice: no wait either.
    await Promise.all(Array.from({ length: 3 }, () => turns.next('q', 1)));
  });
});
