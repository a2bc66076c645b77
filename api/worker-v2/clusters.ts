import type { FastifyRequest } from 'fastify';
import type { ApiPlugin, WithParams } from '../type-provider.js';
import type { Principal } from '../../src/auth/types.js';
import { badRequest, conflict, forbidden, notFound } from '../../src/core/errors.js';
import { newObjectId } from '../../src/core/ids.js';
import {
  defaultClusterView,
  mayUseCluster,
  resolveCluster,
  type ClusterPolicy,
} from '../../src/worker/clusters/cluster-rules.js';
import type { StoredCluster } from '../../src/worker/clusters/cluster-store.js';
import type { Cluster } from '../../src/worker/clusters/cluster-types.js';
import { DEFAULT_CLUSTER } from '../../src/worker/tasks/tasks.js';
import { principalOf, requireToken } from '../auth-hooks.js';
import type { AppContext } from '../../controller/app-context.js';
import {
  clusterListSchema,
  clusterParams,
  clusterResponse,
  clusterRunnersResponse,
  clusterStatsResponse,
  createClusterBody,
  runnerTokenListResponse,
  runnerTokenParams,
  runnerTokenResponse,
  updateClusterBody,
} from './cluster-schemas.js';
import { clusterListEntry, clusterView, instanceView, runnerView } from './cluster-views.js';
import type { WorkerRouteOptions } from './route-options.js';
import { msgSchema } from './views.js';

const mayManage = (principal: Principal, cluster: Cluster) => principal.admin || cluster.user_id === principal.userId;
const maySee = (principal: Principal, cluster: Cluster) => principal.admin || mayUseCluster(cluster, principal.userId);

/**
 * shared_to names users by id (400 for an unknown one) or by e-mail address: an address is
 * accepted whether or not a user has it (one created later gets the share), so no answer tells
 * which addresses exist. Stored as user ids, with the addresses beside them.
 */
async function sharedTargets(
  ctx: AppContext,
  names: string[] | undefined,
): Promise<{ shared_to?: string[]; shared_emails?: Record<string, string> }> {
  if (names === undefined) return {};
  const ids = new Set<string>();
  const emails: Record<string, string> = {};
  for (const name of names) {
    const email = name.includes('@') ? name.trim().toLowerCase() : null;
    const user = email ? await ctx.identity.users.findUserByEmail(email) : await ctx.identity.users.getUser(name);
    if (email) emails[email] = user?.id ?? '';
    else if (!user) throw badRequest(`shared_to: no user "${name}"`);
    if (user) ids.add(user.id);
  }
  return { shared_to: [...ids], shared_emails: emails };
}

/** Clusters: user-scoped (not under a project), /2/clusters. */
export const clusterRoutes: ApiPlugin<WorkerRouteOptions> = async (app, { ctx, worker }) => {
  app.addHook('onRequest', requireToken(ctx));
  const clusterIdOf = (request: WithParams<{ cluster_id: string }>) => request.params.cluster_id;

  async function visible(request: WithParams<{ cluster_id: string }>): Promise<Cluster> {
    const clusterId = clusterIdOf(request);
    if (clusterId === DEFAULT_CLUSTER) return defaultClusterView();
    const stored = await worker.clusters.find(clusterId);
    if (!stored || !maySee(principalOf(request), stored.cluster)) throw notFound(`Cluster ${clusterId} not found`);
    return stored.cluster;
  }

  /** A cluster the caller owns; others see 404 if they may not even see it, 403 otherwise. */
  async function owned(request: WithParams<{ cluster_id: string }>): Promise<Cluster> {
    const cluster = await visible(request);
    if (cluster.id === DEFAULT_CLUSTER) throw forbidden('The default cluster cannot be changed');
    if (!mayManage(principalOf(request), cluster))
      throw forbidden(`Only the owner of cluster ${cluster.id} may change it`);
    return cluster;
  }

  const policyOf = (request: FastifyRequest): ClusterPolicy => ({
    admin: principalOf(request).admin,
    ...ctx.config.clusters,
  });

  /** Runner tokens: the cluster's owner (an admin for the default cluster). */
  async function tokenManaged(request: WithParams<{ cluster_id: string }>): Promise<Cluster> {
    const cluster = await visible(request);
    const principal = principalOf(request);
    if (cluster.id === DEFAULT_CLUSTER ? !principal.admin : !mayManage(principal, cluster))
      throw forbidden(`Only the owner of cluster ${cluster.id} may manage its runner tokens`);
    return cluster;
  }

  /** A tenant owns at most FERRUM_CLUSTER_TENANT_MAX_CLUSTERS clusters; admins are not capped. */
  async function refuseOverClusterCap(request: FastifyRequest): Promise<void> {
    const principal = principalOf(request);
    if (principal.admin) return;
    const cap = ctx.config.clusters.tenantMaxClusters;
    const owned = (await worker.clusters.ofUser(principal.userId)).filter(
      (cluster) => cluster.user_id === principal.userId,
    ).length;
    if (owned >= cap)
      throw forbidden(
        `you own ${owned} clusters, the most a tenant may (FERRUM_CLUSTER_TENANT_MAX_CLUSTERS): delete one first`,
      );
  }

  const fullView = async (cluster: Cluster) => clusterView(cluster, await worker.clusterStatus.instancesOf(cluster.id));

  app.get('/2/clusters', {
    schema: { response: { 200: clusterListSchema } },
    handler: async (request) => {
      const principal = principalOf(request);
      // An admin sees every cluster; anyone else reads only its own index.
      const candidates = principal.admin ? await worker.clusters.all() : await worker.clusters.ofUser(principal.userId);
      const clusters = candidates.filter((cluster) => maySee(principal, cluster));
      // The default (public) cluster has no record but is usable by everyone: it is listed first.
      return { clusters: [defaultClusterView(), ...clusters].map(clusterListEntry) };
    },
  });

  app.post('/2/clusters', {
    schema: { body: createClusterBody, response: { 200: clusterResponse } },
    handler: async (request) => {
      const input = request.body;
      await refuseOverClusterCap(request);
      const base = { id: newObjectId(), user_id: principalOf(request).userId, now: Date.now() };
      const { cluster, secrets } = resolveCluster(
        base,
        { ...input, ...(await sharedTargets(ctx, input.shared_to)) },
        policyOf(request),
      );
      await worker.clusters.create(cluster, secrets);
      await worker.clusters.invite(cluster);
      return { msg: 'Cluster created', cluster: await fullView(cluster) };
    },
  });

  app.get('/2/clusters/:cluster_id', {
    schema: { params: clusterParams, response: { 200: clusterResponse } },
    handler: async (request) => ({ cluster: await fullView(await visible(request)) }),
  });

  app.put('/2/clusters/:cluster_id', {
    schema: { params: clusterParams, body: updateClusterBody, response: { 200: clusterResponse } },
    handler: async (request) => {
      const { id, user_id } = await owned(request);
      const input = request.body;
      const shared = await sharedTargets(ctx, input.shared_to);
      const updated = await worker.clusters.update(id, (old: StoredCluster) =>
        resolveCluster({ id, user_id, now: Date.now() }, { ...input, ...shared }, policyOf(request), old),
      );
      await worker.clusters.invite(updated);
      return { msg: 'Cluster updated', cluster: await fullView(updated) };
    },
  });

  app.delete('/2/clusters/:cluster_id', {
    schema: { params: clusterParams, response: { 200: msgSchema } },
    handler: async (request) => {
      const { id } = await owned(request);
      const active = (await worker.instances.list(id)).filter((instance) => instance.type !== 'TERMINATE');
      if (active.length > 0) throw conflict(`Cluster ${id} still has ${active.length} instances: terminate them first`);
      await worker.clusters.delete(id);
      await worker.instances.forget(id);
      await worker.runnerTokens.revokeAll(id);
      return { msg: 'Deleted' };
    },
  });

  app.get('/2/clusters/:cluster_id/stats', {
    schema: { params: clusterParams, response: { 200: clusterStatsResponse } },
    handler: async (request) => {
      const stats = await worker.clusterStatus.statsOf((await visible(request)).id);
      return { cluster: { ...stats, instances: stats.instances.map(instanceView) } };
    },
  });

  // Which host runs which task: for the cluster's owner (the default cluster: admins) only.
  app.get('/2/clusters/:cluster_id/runners', {
    schema: { params: clusterParams, response: { 200: clusterRunnersResponse } },
    handler: async (request) => {
      const cluster = await visible(request);
      const principal = principalOf(request);
      if (!mayManage(principal, cluster))
        throw forbidden(`Only the owner of cluster ${cluster.id} may list its runners`);
      const { instances } = await worker.runners.runnersOf(cluster.id);
      return { runners: instances.map(runnerView) };
    },
  });

  app.post('/2/clusters/:cluster_id/terminate', {
    schema: { params: clusterParams, response: { 200: msgSchema } },
    handler: async (request) => {
      const { id } = await owned(request);
      const killed = await worker.termination.killAll(id);
      return { msg: `Terminating ${killed} instances` };
    },
  });

  app.post('/2/clusters/:cluster_id/tokens', {
    schema: { params: clusterParams, response: { 200: runnerTokenResponse } },
    handler: async (request) => {
      const { id } = await tokenManaged(request);
      const cap = ctx.config.clusters.maxRunnerTokens;
      if ((await worker.runnerTokens.count(id)) >= cap)
        throw forbidden(
          `cluster ${id} has ${cap} runner tokens, the most allowed (FERRUM_CLUSTER_MAX_RUNNER_TOKENS): revoke one first`,
        );
      return { token: await worker.runnerTokens.create(id) };
    },
  });

  app.get('/2/clusters/:cluster_id/tokens', {
    schema: { params: clusterParams, response: { 200: runnerTokenListResponse } },
    handler: async (request) => {
      const { id } = await tokenManaged(request);
      return { tokens: await worker.runnerTokens.list(id) };
    },
  });

  app.delete('/2/clusters/:cluster_id/tokens/:token_id', {
    schema: { params: runnerTokenParams, response: { 200: msgSchema } },
    handler: async (request) => {
      const { id } = await tokenManaged(request);
      const { token_id: tokenId } = request.params;
      if (!(await worker.runnerTokens.revoke(id, tokenId)))
        throw notFound(`Cluster ${id} has no runner token ${tokenId}`);
      return { msg: 'Revoked' };
    },
  });
};
