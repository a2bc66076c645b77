import { describe, expect, it } from 'vitest';
import * as errors from '../../src/core/errors.js';

const SECTIONS = Object.entries(errors).filter(([name]) => /^[A-Z]+_ERRORS$/.test(name) && name !== 'ERRORS');

describe('the error table', () => {
  it('has every code once across its domain sections', () => {
    const codes = SECTIONS.flatMap(([, section]) => Object.keys(section as object));
    expect(new Set(codes).size).toBe(codes.length);
    expect(Object.keys(errors.ERRORS).sort()).toEqual([...codes].sort());
  });

  it('gives each row a client or server status and a non-empty message', () => {
    for (const [code, entry] of Object.entries(errors.ERRORS)) {
      expect(entry.status, code).toBeGreaterThanOrEqual(400);
      expect(entry.status, code).toBeLessThan(600);
      expect(typeof entry.message === 'function' || entry.message.length > 0, code).toBe(true);
    }
  });

  it('fail() builds the row as an HttpError carrying its code', () => {
    const error = errors.fail('redis_unavailable');
    expect(error).toBeInstanceOf(errors.HttpError);
    expect(error.statusCode).toBe(503);
    expect(error.code).toBe('redis_unavailable');
  });
});
