import { afterEach, describe, expect, it, vi } from 'vitest';
import { CallHeadroom } from '../../src/functions/calls/call-headroom.js';

describe('CallHeadroom', () => {
  afterEach(() => vi.useRealTimers());

  it('lets in unread as many calls as each fit with their most bytes, then asks for a read', () => {
    const room = new CallHeadroom(100);
    expect(room.take('p')).toBe(false);
    // 350 bytes free: the 1st, 2nd and 3rd calls after the read each still find room (300 < 350).
    room.found('p', 350);
    expect([room.take('p'), room.take('p'), room.take('p'), room.take('p')]).toEqual([true, true, true, false]);
    expect(room.take('other')).toBe(false);
  });

  it('knows no room for a project near its quota, and forgets what it found after a second', () => {
    vi.useFakeTimers();
    const room = new CallHeadroom(100);
    room.found('p', 100);
    expect(room.take('p')).toBe(false);
    room.found('p', 10_000);
    vi.advanceTimersByTime(999);
    expect(room.take('p')).toBe(true);
    vi.advanceTimersByTime(1);
    expect(room.take('p')).toBe(false);
  });
});
