import { describe, expect, it } from 'vitest';
import { isMessageId, newMessageId } from '../../src/core/ids.js';

describe('message ids', () => {
  it('are decimal strings of 64-bit numbers, strictly increasing within a process', () => {
    const ids = Array.from({ length: 20_000 }, () => newMessageId());
    for (const id of ids) {
      expect(isMessageId(id)).toBe(true);
      expect(BigInt(id) < 2n ** 63n).toBe(true);
    }
    for (let i = 1; i < ids.length; i++) expect(BigInt(ids[i]!) > BigInt(ids[i - 1]!)).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('are ordered by time across milliseconds, even when the clock steps back', () => {
    const early = newMessageId(Date.parse('2030-01-01T00:00:00Z'));
    const later = newMessageId(Date.parse('2030-01-01T00:00:00.002Z'));
    const clockBack = newMessageId(Date.parse('2030-01-01T00:00:00.001Z'));
    expect(BigInt(later) > BigInt(early)).toBe(true);
    expect(BigInt(clockBack) > BigInt(later)).toBe(true);
    // The time part is milliseconds since 2020-01-01 in the top bits.
    const ms = Number(BigInt(early) >> 22n) + Date.parse('2020-01-01T00:00:00Z');
    expect(ms).toBeGreaterThanOrEqual(Date.parse('2030-01-01T00:00:00Z'));
  });
});
