import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import * as errors from '../../src/core/errors.js';

const ROWS_DIR = path.resolve(import.meta.dirname, '../../src/core/error-rows');

/** Every section file's rows, by section, read as modules (so a code defined twice shows). */
async function sections(): Promise<Record<string, object>[]> {
  const files = fs.readdirSync(ROWS_DIR).filter((file) => file.endsWith('.ts') && file !== 'row.ts');
  const modules = await Promise.all(files.map((file) => import(path.join(ROWS_DIR, file))));
  return modules.flatMap((module) => Object.values(module as Record<string, Record<string, object>>));
}

describe('the error table', () => {
  it('has every code once across its domain sections, and every section in the table', async () => {
    const codes = (await sections()).flatMap((section) => Object.keys(section));
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

  it('has no two rows answering the same status and text (a shared rule is one row, FIELD_ERRORS for fields)', () => {
    const seen = new Map<string, string>();
    const twins: string[] = [];
    for (const [code, entry] of Object.entries(errors.ERRORS)) {
      const message = entry.message as string | ((...args: unknown[]) => string);
      // Arrays stand for every kind of argument: they print as their item, join and count alike.
      const text = typeof message === 'function' ? message(['x'], [7], [9], ['y']) : message;
      const key = `${entry.status} ${text}`;
      const other = seen.get(key);
      if (other) twins.push(`${other} = ${code}`);
      seen.set(key, code);
    }
    expect(twins).toEqual([]);
  });

  it('fail() builds the row as an HttpError carrying its code', () => {
    const error = errors.fail('redis_unavailable');
    expect(error).toBeInstanceOf(errors.HttpError);
    expect(error.statusCode).toBe(503);
    expect(error.code).toBe('redis_unavailable');
  });
});
