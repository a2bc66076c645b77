import { scriptClock } from '../../core/lua.js';
import type { ReserveResult } from '../types.js';
import type { WakeHub } from './wake-hub.js';

// A reserve retried right at the due time can miss it by the clocks' difference; wait a little past.
const DUE_SLACK_MS = 5;

/**
 * A reserve's long-poll: runs `reserveOnce` until it reserves something, `waitSeconds` pass, or
 * `signal` aborts (client gone, shutdown). Woken through pub/sub on `channel`, or at the moment a
 * delayed or reserved message falls due.
 */
export async function reserveWaiting(
  hub: WakeHub,
  channel: string,
  waitSeconds: number,
  reserveOnce: () => Promise<ReserveResult>,
  signal?: AbortSignal,
): Promise<ReserveResult> {
  const deadline = Date.now() + waitSeconds * 1000;
  const waiter = await hub.listen(channel);
  const stop = () => waiter.close();
  signal?.addEventListener('abort', stop);
  try {
    // Subscribed now: this reserve sees everything posted before, the waiter everything after.
    let result = await reserveOnce();
    while (result.count === 0) {
      const remaining = deadline - Date.now();
      if (remaining <= 0 || waiter.closed) break;
      const untilDue =
        result.nextDueMs >= 0 ? Math.max(result.nextDueMs - scriptClock.now(), 0) + DUE_SLACK_MS : Infinity;
      await waiter.next(Math.min(remaining, untilDue));
      if (waiter.closed) break;
      result = await reserveOnce();
    }
    return result;
  } finally {
    signal?.removeEventListener('abort', stop);
    waiter.close();
  }
}
