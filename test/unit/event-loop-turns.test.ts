import { describe, expect, it } from 'vitest';
import { EventLoopTurns } from '../../src/core/event-loop-turns.js';

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

describe('EventLoopTurns', () => {
  it('starts one slice a turn: pieces of a whole slice each get a turn of their own', async () => {
    const turns = new EventLoopTurns(100);
    const counter = turnCounter();
    const startedAt: number[] = [];
    await Promise.all([1, 2, 3].map(() => turns.next('p', 100).then(() => startedAt.push(counter.now()))));
    counter.stop();
    expect(new Set(startedAt).size).toBe(3);
    expect(turns.size).toBe(0);
  });

  it('starts small pieces together, up to a slice', async () => {
    const turns = new EventLoopTurns(100);
    const counter = turnCounter();
    const startedAt: number[] = [];
    await Promise.all(Array.from({ length: 10 }, () => turns.next('p', 10).then(() => startedAt.push(counter.now()))));
    counter.stop();
    expect(new Set(startedAt).size).toBe(1);
  });

  it('serves the waiting projects in turn, each in its order', async () => {
    const turns = new EventLoopTurns(1);
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
});
