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
