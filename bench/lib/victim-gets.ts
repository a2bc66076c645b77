// The victim's side of the isolation benchmark: its cache GET latency, from several clients.
import autocannon from 'autocannon';
import type { Tenant } from './tenants.js';

export const VICTIM_CLIENTS = 4;

export interface Latency {
  p50: number;
  p99: number;
  max: number;
  rps: number;
}

/** GETs the victim's item `hot` of its cache `mine` for `seconds`; every answer must be a 2xx. */
export async function victimGets(info: { url: string }, victim: Tenant, seconds: number): Promise<Latency> {
  const result = await autocannon({
    url: `${info.url}/1/projects/${victim.projectId}/caches/mine/items/hot`,
    headers: { authorization: `OAuth ${victim.token}` },
    connections: VICTIM_CLIENTS,
    duration: seconds,
  });
  if (result.non2xx > 0 || result.errors > 0) {
    const statuses = Object.entries(result.statusCodeStats ?? {})
      .map(([status, { count }]) => `${count} × ${status}`)
      .join(', ');
    throw new Error(`victim GET: ${result.non2xx} non-2xx answers (${statuses}), ${result.errors} errors`);
  }
  return { p99: result.latency.p99, p50: result.latency.p50, max: result.latency.max, rps: result.requests.average };
}
