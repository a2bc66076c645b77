/** Epoch milliseconds to the RFC 3339 form the API prints. */
export function toRfc3339(ms: number | undefined | null): string | undefined {
  if (ms === undefined || ms === null || !Number.isFinite(ms)) return undefined;
  return new Date(ms).toISOString();
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Waits for `work` at most `ms`; on timeout logs once what was given up and resolves anyway
 * (a shutdown step that needs an unreachable Redis must not hold the process).
 */
export async function giveUpAfter(
  ms: number,
  what: string,
  work: Promise<unknown>,
  log: { warn(details: object, message: string): void },
): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), ms)));
  try {
    const outcome = await Promise.race([work.then(() => 'done' as const), late]);
    if (outcome === 'late') log.warn({ step: what, timeout_ms: ms }, `shutdown: gave up waiting for ${what}`);
  } catch (error) {
    log.warn({ step: what, err: (error as Error).message }, `shutdown: ${what} failed`);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Runs `attempt` until it succeeds, again after growing pauses (200 ms doubling, at most 5 s)
 * while `passing(error)` says its failure is temporary, for up to `forMs`; then the last error.
 */
export async function retryWhile<T>(
  attempt: () => Promise<T>,
  passing: (error: unknown) => boolean,
  forMs: number,
): Promise<T> {
  const deadline = Date.now() + forMs;
  for (let n = 0; ; n++) {
    try {
      return await attempt();
    } catch (error) {
      if (!passing(error) || Date.now() >= deadline) throw error;
      await sleep(Math.min(200 * 2 ** n, 5000, Math.max(0, deadline - Date.now())));
    }
  }
}
