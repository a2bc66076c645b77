import { describe, expect, it } from 'vitest';
import { newUnguessableId, objectIdTime } from '../../src/core/ids.js';

describe('unguessable ids (call ids)', () => {
  it('are 24 hex digits: the time to the millisecond, then 13 random digits', () => {
    const now = Date.UTC(2026, 10, 26, 3, 15, 0, 123);
    const id = newUnguessableId(now);
    expect(id).toMatch(/^[0-9a-f]{24}$/);
    expect(objectIdTime(id)).toBe(now - 123);
    expect(id.slice(8, 11)).toBe((123).toString(16).padStart(3, '0'));
  });

  it('never repeat within one millisecond, across many refills of the random pool', () => {
    const now = Date.now();
    const ids = Array.from({ length: 5000 }, () => newUnguessableId(now));
    expect(new Set(ids).size).toBe(ids.length);
    const randomParts = new Set(ids.map((id) => id.slice(11)));
    expect(randomParts.size).toBe(ids.length);
  });
});
