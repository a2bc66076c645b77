import { describe, expect, it } from 'vitest';
import { retryWhile } from '../../src/core/time.js';
import { scaled } from '../helpers/pace.js';

describe('retryWhile', () => {
  const passing = (error: unknown) => (error as Error).message === 'passing';

  it('tries again after a passing failure until the attempt succeeds', async () => {
    let calls = 0;
    const result = await retryWhile(
      async () => {
        calls += 1;
        if (calls < 3) throw new Error('passing');
        return 'done';
      },
      passing,
      10_000,
    );
    expect(result).toBe('done');
    expect(calls).toBe(3);
  });

  it('gives a lasting failure back at once', async () => {
    let calls = 0;
    const failing = retryWhile(
      async () => {
        calls += 1;
        throw new Error('lasting');
      },
      passing,
      10_000,
    );
    await expect(failing).rejects.toThrow('lasting');
    expect(calls).toBe(1);
  });

  it('gives the passing failure back once its time is up', async () => {
    const started = Date.now();
    let calls = 0;
    const failing = retryWhile(
      async () => {
        calls += 1;
        throw new Error('passing');
      },
      passing,
      300,
    );
    await expect(failing).rejects.toThrow('passing');
    expect(calls).toBeGreaterThanOrEqual(2);
    expect(Date.now() - started).toBeLessThan(scaled(5_000));
  });
});
