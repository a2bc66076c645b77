import type { ApiInstance, ApiPlugin, WithParams } from '../type-provider.js';
import type { ClusterService } from '../../src/worker/clusters/cluster-service.js';
import { principalOf, requireToken } from '../auth-hooks.js';
import type { PluginOptions } from '../context.js';
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
import { msgSchema } from './views.js';

/** The cluster routes' options: every route is one ClusterService call. */
export interface ClusterRouteOptions extends PluginOptions {
  clusters: ClusterService;
}

const clusterIdOf = (request: WithParams<{ cluster_id: string }>) => request.params.cluster_id;

/** Clusters: user-scoped (not under a project), /2/clusters. */
export const clusterRoutes: ApiPlugin<ClusterRouteOptions> = async (app, { ctx, clusters }) => {
  app.addHook('onRequest', requireToken(ctx));
  clusterRecordRoutes(app, clusters);
  clusterMachineRoutes(app, clusters);
  runnerTokenRoutes(app, clusters);
};

/** Listing, creating, reading, changing and deleting clusters. */
function clusterRecordRoutes(app: ApiInstance, clusters: ClusterService): void {
  const detailView = ({ cluster, machines }: Awaited<ReturnType<ClusterService['get']>>) =>
    clusterView(cluster, machines);

  app.get('/2/clusters', {
    schema: { response: { 200: clusterListSchema } },
    handler: async (request) => ({ clusters: (await clusters.list(principalOf(request))).map(clusterListEntry) }),
  });

  app.post('/2/clusters', {
    schema: { body: createClusterBody, response: { 200: clusterResponse } },
    handler: async (request) => {
      const created = await clusters.create(principalOf(request), request.body);
      return { msg: 'Cluster created', cluster: detailView(created) };
    },
  });

  app.get('/2/clusters/:cluster_id', {
    schema: { params: clusterParams, response: { 200: clusterResponse } },
    handler: async (request) => ({
      cluster: detailView(await clusters.get(principalOf(request), clusterIdOf(request))),
    }),
  });

  app.put('/2/clusters/:cluster_id', {
    schema: { params: clusterParams, body: updateClusterBody, response: { 200: clusterResponse } },
    handler: async (request) => {
      const updated = await clusters.update(principalOf(request), clusterIdOf(request), request.body);
      return { msg: 'Cluster updated', cluster: detailView(updated) };
    },
  });

  app.delete('/2/clusters/:cluster_id', {
    schema: { params: clusterParams, response: { 200: msgSchema } },
    handler: async (request) => {
      await clusters.delete(principalOf(request), clusterIdOf(request));
      return { msg: 'Deleted' };
    },
  });
}

/** A cluster's machines: stats, runners, termination. */
function clusterMachineRoutes(app: ApiInstance, clusters: ClusterService): void {
  app.get('/2/clusters/:cluster_id/stats', {
    schema: { params: clusterParams, response: { 200: clusterStatsResponse } },
    handler: async (request) => {
      const stats = await clusters.stats(principalOf(request), clusterIdOf(request));
      return { cluster: { ...stats, instances: stats.instances.map(instanceView) } };
    },
  });

  app.get('/2/clusters/:cluster_id/runners', {
    schema: { params: clusterParams, response: { 200: clusterRunnersResponse } },
    handler: async (request) => ({
      runners: (await clusters.runners(principalOf(request), clusterIdOf(request))).map(runnerView),
    }),
  });

  app.post('/2/clusters/:cluster_id/terminate', {
    schema: { params: clusterParams, response: { 200: msgSchema } },
    handler: async (request) => {
      const killed = await clusters.terminate(principalOf(request), clusterIdOf(request));
      return { msg: `Terminating ${killed} instances` };
    },
  });
}

/** The runner tokens remote runners of a cluster sign in with. */
function runnerTokenRoutes(app: ApiInstance, clusters: ClusterService): void {
  app.post('/2/clusters/:cluster_id/tokens', {
    schema: { params: clusterParams, response: { 200: runnerTokenResponse } },
    handler: async (request) => ({
      token: await clusters.createRunnerToken(principalOf(request), clusterIdOf(request)),
    }),
  });

  app.get('/2/clusters/:cluster_id/tokens', {
    schema: { params: clusterParams, response: { 200: runnerTokenListResponse } },
    handler: async (request) => ({ tokens: await clusters.runnerTokens(principalOf(request), clusterIdOf(request)) }),
  });

  app.delete('/2/clusters/:cluster_id/tokens/:token_id', {
    schema: { params: runnerTokenParams, response: { 200: msgSchema } },
    handler: async (request) => {
      await clusters.revokeRunnerToken(principalOf(request), clusterIdOf(request), request.params.token_id);
      return { msg: 'Revoked' };
    },
  });
}
