import { describe, expect, it } from 'vitest';
import { ProjectBudget } from '../../src/core/project-budget.js';

// The fairness rule every in-process writer goes through (ProjectBudget.write): a project has at
// most `writesInFlight` writes in Redis at once, the rest wait their slot (none lost), another
// project's write is not held behind them, and a write caused inside a write (writeCaused) needs no
// second slot.

function budget(writesInFlight: number): ProjectBudget {
  return new ProjectBudget({ bytesPerSecond: 0, burstBytes: 0, sliceBytes: 64 * 1024, writesInFlight });
}

/** A write that stays in flight until `finish()` is called; `started` says whether it began. */
function heldWrite() {
  let finish = () => {};
  const held = { started: false, finish: () => finish() };
  const run = () =>
    new Promise<void>((resolve) => {
      held.started = true;
      finish = resolve;
    });
  return { held, run };
}

/** Resolves after a few turns of the event loop (writes start in turns of their own). */
async function turns(count = 5): Promise<void> {
  for (let i = 0; i < count; i++) await new Promise((resolve) => setImmediate(resolve));
}

describe('ProjectBudget.write', () => {
  it("bounds a project's writes in flight; the others wait their slot and all happen", async () => {
    const writes = budget(2);
    const pieces = Array.from({ length: 5 }, () => heldWrite());
    const done = pieces.map((piece) => writes.write('hostile', 50_000, piece.run));
    await turns();
    expect(pieces.map((piece) => piece.held.started)).toEqual([true, true, false, false, false]);
    expect(writes.writesInFlight('hostile')).toBe(2);
    for (const piece of pieces) {
      const startedBefore = pieces.filter((each) => each.held.started).length;
      piece.held.finish();
      await turns();
      expect(pieces.filter((each) => each.held.started).length).toBeLessThanOrEqual(startedBefore + 1);
      expect(writes.writesInFlight('hostile')).toBeLessThanOrEqual(2);
    }
    await Promise.all(done);
    expect(pieces.every((piece) => piece.held.started)).toBe(true);
    expect(writes.writesInFlight('hostile')).toBe(0);
  });

  it("does not hold another project's write behind a saturated project", async () => {
    const writes = budget(2);
    const hostile = Array.from({ length: 10 }, () => heldWrite());
    const hostileDone = hostile.map((piece) => writes.write('hostile', 50_000, piece.run));
    const victim = await writes.write('victim', 10, () => Promise.resolve('written'));
    expect(victim).toBe('written');
    expect(writes.writesInFlight('hostile')).toBe(2);
    for (const piece of hostile) {
      await turns();
      piece.held.finish();
    }
    await Promise.all(hostileDone);
  });

  it('runs a write caused inside a write while that write holds the last slot (an alert its post fires)', async () => {
    const writes = budget(1);
    const order: string[] = [];
    await writes.write('p', 100, async () => {
      order.push('post');
      await writes.writeCaused('p', 100, () => Promise.resolve(order.push('alert')));
    });
    expect(order).toEqual(['post', 'alert']);
    expect(writes.writesInFlight('p')).toBe(0);
  });

  it('frees the slot of a write that failed', async () => {
    const writes = budget(1);
    await expect(writes.write('p', 1, () => Promise.reject(new Error('refused')))).rejects.toThrow('refused');
    expect(writes.writesInFlight('p')).toBe(0);
    expect(await writes.write('p', 1, () => Promise.resolve(1))).toBe(1);
  });
});

describe('ProjectBudget.ready', () => {
  it("waits while the project's work waits for its turn, not for another project's", async () => {
    const shared = budget(4);
    const waiting = shared.spendInBackground('busy', 1_000);
    let busyReady = false;
    const ready = shared.ready('busy').then(() => (busyReady = true));
    // Another project's work is not behind 'busy''s.
    await shared.ready('other');
    expect(busyReady).toBe(false);
    await waiting;
    await ready;
    expect(busyReady).toBe(true);
  });
});
