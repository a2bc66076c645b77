import { describe, expect, it } from 'vitest';
import { retryWhile } from '../../src/core/time.js';
import { scaled } from '../helpers/pace.js';

describe('retryWhile', () => {
  const passing = (error: unknown) => (error as Error).message === 'passing';

  /** retryWhile (passing failures, `timeoutMs`) over `attempt`, which is given its call's number (1 first). */
  function retried<T>(attempt: (call: number) => Promise<T>, timeoutMs: number) {
    const made = { calls: 0 };
    const result = retryWhile(async () => attempt(++made.calls), passing, timeoutMs);
    return { result, made };
  }

  it('tries again after a passing failure until the attempt succeeds', async () => {
    const { result, made } = retried(async (call) => {
      if (call < 3) throw new Error('passing');
      return 'done';
    }, 10_000);
    expect(await result).toBe('done');
    expect(made.calls).toBe(3);
  });

  it('gives a lasting failure back at once', async () => {
    const { result, made } = retried(async () => {
      throw new Error('lasting');
    }, 10_000);
    await expect(result).rejects.toThrow('lasting');
    expect(made.calls).toBe(1);
  });

  it('gives the passing failure back once its time is up', async () => {
    const started = Date.now();
    const { result, made } = retried(async () => {
      throw new Error('passing');
    }, 300);
    await expect(result).rejects.toThrow('passing');
    expect(made.calls).toBeGreaterThanOrEqual(2);
    expect(Date.now() - started).toBeLessThan(scaled(5_000));
  });
});
