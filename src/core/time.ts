/** Epoch milliseconds to the RFC 3339 form the API prints. */
export function toRfc3339(ms: number | undefined | null): string | undefined {
  if (ms === undefined || ms === null || !Number.isFinite(ms)) return undefined;
  return new Date(ms).toISOString();
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
