import { afterEach, describe, expect, it, vi } from 'vitest';
import { KeyedPacer, KeyedSlots } from '../../src/core/keyed-pacing.js';

afterEach(() => {
  vi.useRealTimers();
});

describe('KeyedPacer', () => {
  it("lets a quiet key's burst pass at once, then spaces its bytes to the rate, per key", () => {
    vi.useFakeTimers({ now: 1_000_000, toFake: ['Date'] });
    const pacer = new KeyedPacer(1000, 500); // 1000 bytes/s, a 500-byte burst
    expect(pacer.book('a', 500)).toBe(0);
    // The next 250 bytes would end 750 ms from now, 500 ms of it covered by the burst.
    expect(pacer.book('a', 250)).toBe(250);
    expect(pacer.book('a', 250)).toBe(500);
    // Another key is not held behind the first.
    expect(pacer.book('b', 500)).toBe(0);
    expect(pacer.size).toBe(2);
  });

  it('tells how long a key would wait now, without booking (what push delivery waits before reserving)', () => {
    vi.useFakeTimers({ now: 1_000_000, toFake: ['Date'] });
    const pacer = new KeyedPacer(1000, 500);
    expect(pacer.backlogMs('a')).toBe(0);
    pacer.book('a', 500);
    expect(pacer.backlogMs('a')).toBe(0);
    pacer.book('a', 250);
    expect(pacer.backlogMs('a')).toBe(250);
    expect(pacer.backlogMs('a')).toBe(250);
    vi.setSystemTime(1_000_300);
    expect(pacer.backlogMs('a')).toBe(0);
  });
});

describe('KeyedSlots', () => {
  it('holds at most `size` per key, hands the next one over in order, and forgets idle keys', async () => {
    const slots = new KeyedSlots(1);
    const first = await slots.acquire('p');
    let second: (() => void) | undefined;
    const waiting = slots.acquire('p').then((release) => (second = release));
    expect(slots.keys).toBe(1);
    first();
    first(); // a second release of the same slot frees nothing more
    await waiting;
    expect(second).toBeDefined();
    second!();
    expect(slots.keys).toBe(0);
  });
});
