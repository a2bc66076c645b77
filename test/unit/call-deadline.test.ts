import { describe, expect, it } from 'vitest';
import { deadlineText } from '../../runner/functions/call-deadline.js';

describe('deadlineText', () => {
  it('gives what Date#toISOString gives, across milliseconds, seconds and days', () => {
    const start = Date.UTC(2026, 11, 31, 23, 59, 58, 990);
    for (let ms = start; ms < start + 2500; ms += 7) expect(deadlineText(ms)).toBe(new Date(ms).toISOString());
    for (const ms of [0, 1, 999, 1000, Date.UTC(2030, 0, 1), Date.UTC(2030, 0, 1) + 5, Date.UTC(2030, 0, 1) + 50])
      expect(deadlineText(ms)).toBe(new Date(ms).toISOString());
  });
});
