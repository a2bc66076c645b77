import { deadlineAfter } from './pace.js';

/**
 * Polls `check` until it returns a value other than undefined or false, and returns it; fails
 * after `timeoutMs`, a bound for a machine at rest that grows with the machine's measured
 * slowness (see pace.ts: deadlineAfter). Tests wait on conditions with this, never on fixed sleeps.
 */
export async function eventually<T>(
  check: () => Promise<T | undefined | false> | T | undefined | false,
  timeoutMs = 5000,
  what = 'condition',
): Promise<T> {
  const deadline = deadlineAfter(timeoutMs);
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (deadline.passed()) throw new Error(`${what} not reached within ${deadline.boundMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
