import type { FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import { fail } from '../../src/core/errors.js';
import { pathParameter } from '../request-fields.js';
import type { RunnerGrant, RunnerTokens } from '../../src/worker/clusters/runners/runner-tokens.js';

declare module 'fastify' {
  interface FastifyRequest {
    runnerGrant: RunnerGrant | null;
  }
}

const SCHEME = 'Bearer ';

/**
 * Hook: a live runner token (`Authorization: Bearer runner_…`), for the `cluster_id` path
 * parameter's cluster and, for an instance's own token, that `instance_id`. Checked on every
 * call, so a revoked token stops working at once, and before the body is parsed or validated,
 * so a stranger learns nothing of what a body should hold.
 */
export function requireRunnerToken(tokens: RunnerTokens): onRequestAsyncHookHandler {
  return async (request: FastifyRequest) => {
    const header = request.headers.authorization ?? '';
    if (!header.startsWith(SCHEME)) throw fail('runner_token_missing');
    const grant = await tokens.find(tokenOf(request));
    if (!grant) throw fail('runner_token_invalid');
    const clusterId = pathParameter(request, 'cluster_id');
    const instanceId = pathParameter(request, 'instance_id');
    if (clusterId !== undefined && clusterId !== grant.cluster)
      throw fail('runner_token_other_cluster', grant.cluster, clusterId);
    if (grant.instance_id && instanceId !== undefined && instanceId !== grant.instance_id)
      throw fail('runner_token_other_instance', grant.instance_id, instanceId);
    request.runnerGrant = grant;
  };
}

function tokenOf(request: FastifyRequest): string {
  return (request.headers.authorization ?? '').slice(SCHEME.length).trim();
}

/** Whether the request's token still works: a long-poll checks again before it hands out a task. */
export async function stillGranted(request: FastifyRequest, tokens: RunnerTokens): Promise<boolean> {
  return (await tokens.find(tokenOf(request))) !== null;
}

export function grantOf(request: FastifyRequest): RunnerGrant {
  if (!request.runnerGrant) throw fail('not_authenticated');
  return request.runnerGrant;
}
