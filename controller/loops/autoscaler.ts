import Docker from 'dockerode';
import type { FastifyBaseLogger } from 'fastify';
import { isRedisUnavailable } from '../../src/core/redis.js';
import { storeIdOf } from '../../src/core/store-id.js';
import type { WorkerServices } from '../../src/worker/services.js';
import { ClusterScaler } from './cluster-scaler.js';
import { awsOwnerTag } from '../providers/aws-owner-tag.js';
import { InstanceProviders } from '../providers/provider-factory.js';
import type { LeaderWork, LoopEnv } from '../loop-runner.js';

async function scaleAll(
  worker: WorkerServices,
  providers: InstanceProviders,
  scaler: ClusterScaler,
  log: FastifyBaseLogger,
  isStopping: () => boolean,
  maxLaunchPerPass: number,
): Promise<void> {
  const budget = { launches: maxLaunchPerPass };
  for (const cluster of await worker.clusters.all()) {
    if (isStopping()) return;
    try {
      const stored = await worker.clusters.find(cluster.id);
      if (stored) await scaler.pass(stored, await providers.providerFor(stored), budget);
    } catch (error) {
      // Redis down: the whole pass fails (and the loop backs off), not each cluster in turn.
      if (isRedisUnavailable(error)) throw error;
      // One cluster's trouble (a provider refusing) must not hold up the others.
      log.warn({ err: error, cluster: cluster.id }, 'autoscaling the cluster failed; retrying next pass');
    }
  }
}

/**
 * The loop table's autoscaler pass, every FERRUM_AUTOSCALER_INTERVAL_MS: scale every cluster and
 * move its instances along. Launched runners reach the runner API at this controller's public
 * URL, unless FERRUM_AUTOSCALER_RUNNER_API_URL says otherwise.
 */
export async function autoscalerWork({ ctx, log, publicUrl }: LoopEnv): Promise<LeaderWork> {
  const { worker } = ctx;
  const { autoscaler: settings } = ctx.config;
  const autoscalerLog = log.child({ component: 'autoscaler' });
  const providers = new InstanceProviders(
    {
      docker: new Docker(),
      runners: worker.runners,
      image: settings.dockerImage,
      socketPath: settings.dockerSocket,
      ownerId: storeIdOf(ctx.redisUrl, ctx.config.keyPrefix),
    },
    { ...ctx.config.aws, ownerTag: await awsOwnerTag(ctx.config.aws, ctx.redis, ctx.keys) },
    autoscalerLog,
  );
  const ownerIsAdmin = async (userId: string) => (await ctx.identity.users.getUser(userId))?.admin === true;
  const apiUrl = settings.runnerApiUrl ?? publicUrl;
  const scaler = new ClusterScaler(ctx.config, apiUrl, worker, autoscalerLog, ownerIsAdmin);
  return {
    log: autoscalerLog,
    pass: (isStopping) => scaleAll(worker, providers, scaler, autoscalerLog, isStopping, settings.maxLaunchPerPass),
    close: () => providers.close(),
  };
}
