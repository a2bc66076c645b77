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

  it('are exactly the milliseconds, this process and the sequence, whatever the decimal carry', () => {
    const epoch = Date.parse('2020-01-01T00:00:00Z');
    const start = Date.parse('2031-06-01T00:00:00Z');
    const node = (BigInt(newMessageId(start)) >> 12n) & 0x3ffn;
    const wrong: string[] = [];
    const baseOf = (ms: number) => (BigInt(ms - epoch) << 22n) | (node << 12n);
    // A whole millisecond's 4096 ids per step, in steps where they cross a decimal boundary of the
    // id's last six digits (written in full there) and in others.
    const crossing: number[] = [];
    for (let ms = start + 1; crossing.length < 5; ms++)
      if (baseOf(ms) % 1_000_000n > 1_000_000n - 4096n) crossing.push(ms);
    const steps = [...crossing, ...Array.from({ length: 100 }, (_, i) => crossing[4]! + (i + 1) * 7919)];
    for (const ms of steps) {
      const expectedBase = baseOf(ms);
      for (let sequence = 0; sequence < 4096; sequence++) {
        const id = newMessageId(ms);
        if (BigInt(id) !== (expectedBase | BigInt(sequence))) wrong.push(`${ms}/${sequence}: ${id}`);
      }
    }
    expect(wrong).toEqual([]);
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
