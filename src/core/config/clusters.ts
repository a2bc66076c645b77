import { VERSION } from '../version.js';
import { type Env, fractionFrom, intFrom, listFrom, nonEmpty } from './env.js';

/** Settings of the cluster autoscaler (a leader-elected loop on the controllers). */
export interface AutoscalerConfig {
  /** How often the leader scales clusters and moves instances along ADD → LIVE → KILL → TERMINATE (0 = never). */
  intervalMs: number;
  /** Weight of the newest demand figure in the cluster's ewma (0 < alpha <= 1). */
  ewmaAlpha: number;
  /** Least time between two scaling actions on one cluster. */
  cooldownMs: number;
  /** An instance whose runner has not registered this long after launch is retired. */
  bootTimeoutMs: number;
  /** How long TERMINATE instance records stay visible in stats. */
  terminatedRetentionMs: number;
  /** The Ferrum image the docker provider runs runner containers from. */
  dockerImage: string;
  /** The Docker socket mounted into runner containers (the engine their tasks run on). */
  dockerSocket: string;
  /** The API URL launched runners (gateway mode) reach; the controller's own listening URL when unset. */
  runnerApiUrl: string | undefined;
  /** Most instances one pass launches for one cluster. */
  maxLaunchPerCluster: number;
  /** Most instances one pass launches over all clusters. */
  maxLaunchPerPass: number;
}

/** What tenants (non-admin tokens) may ask of clusters; admins are not bound by it. */
export interface ClusterPolicyConfig {
  /** Providers tenants may choose: `static` always; `docker` and `aws` start machines or containers, so only when listed. */
  tenantProviders: string[];
  /** Largest runners_min and runners_max a tenant's cluster may have. */
  tenantMaxRunners: number;
  /** How many clusters one tenant (a user who is not an admin) may own. */
  tenantMaxClusters: number;
  /** How many runner tokens the API creates for one cluster (the autoscaler's per-instance tokens aside). */
  maxRunnerTokens: number;
}

/** Settings of the AWS instance provider of the cluster autoscaler. */
export interface AwsConfig {
  /**
   * The tag on every EC2 instance this installation launches; only instances carrying it are
   * ever terminated. Undefined: `ferrum:owner=<this installation's id>`.
   */
  ownerTag: { key: string; value: string } | undefined;
  /** An EC2 API endpoint instead of the region's own (a private endpoint, a local emulator). */
  endpoint: string | undefined;
  /** The Ferrum image instances run as `ferrum runner` with the default user_data. */
  runnerImage: string;
  /** How long a launch waits for its instance to run before associating an Elastic IP, in seconds. */
  eipWaitSeconds: number;
}

export function readAutoscalerConfig(env: Env): AutoscalerConfig {
  return {
    intervalMs: intFrom(env, 'FERRUM_AUTOSCALER_INTERVAL_MS', 10_000),
    ewmaAlpha: fractionFrom(env, 'FERRUM_AUTOSCALER_EWMA_ALPHA', 0.3),
    cooldownMs: intFrom(env, 'FERRUM_AUTOSCALER_COOLDOWN_MS', 60_000),
    bootTimeoutMs: Math.max(1000, intFrom(env, 'FERRUM_AUTOSCALER_BOOT_TIMEOUT_MS', 300_000)),
    terminatedRetentionMs: intFrom(env, 'FERRUM_AUTOSCALER_TERMINATED_RETENTION_MS', 3_600_000),
    dockerImage: env.FERRUM_AUTOSCALER_DOCKER_IMAGE || 'ferrum',
    dockerSocket: env.FERRUM_AUTOSCALER_DOCKER_SOCKET || '/var/run/docker.sock',
    runnerApiUrl: nonEmpty(env.FERRUM_AUTOSCALER_RUNNER_API_URL),
    maxLaunchPerCluster: Math.max(1, intFrom(env, 'FERRUM_AUTOSCALER_MAX_LAUNCH_PER_CLUSTER', 5)),
    maxLaunchPerPass: Math.max(1, intFrom(env, 'FERRUM_AUTOSCALER_MAX_LAUNCH_PER_PASS', 20)),
  };
}

export function readClusterPolicy(env: Env): ClusterPolicyConfig {
  return {
    tenantProviders: tenantProvidersFrom(env.FERRUM_CLUSTER_TENANT_PROVIDERS),
    tenantMaxRunners: intFrom(env, 'FERRUM_CLUSTER_TENANT_MAX_RUNNERS', 20),
    tenantMaxClusters: intFrom(env, 'FERRUM_CLUSTER_TENANT_MAX_CLUSTERS', 50),
    maxRunnerTokens: intFrom(env, 'FERRUM_CLUSTER_MAX_RUNNER_TOKENS', 100),
  };
}

export function readAwsConfig(env: Env): AwsConfig {
  return {
    ownerTag: ownerTagFrom(env.FERRUM_AWS_OWNER_TAG),
    endpoint: nonEmpty(env.FERRUM_AWS_ENDPOINT),
    runnerImage: env.FERRUM_AWS_RUNNER_IMAGE || `ferrum:${VERSION}`,
    eipWaitSeconds: Math.max(1, intFrom(env, 'FERRUM_AWS_EIP_WAIT_SECONDS', 300)),
  };
}

/** FERRUM_AWS_OWNER_TAG is "key=value"; the value may be empty, the key may not. */
function ownerTagFrom(raw: string | undefined): AwsConfig['ownerTag'] {
  if (raw === undefined || raw === '') return undefined;
  const at = raw.indexOf('=');
  if (at <= 0) throw new Error(`FERRUM_AWS_OWNER_TAG must be key=value, got "${raw}"`);
  return { key: raw.slice(0, at), value: raw.slice(at + 1) };
}

const CLUSTER_PROVIDERS = ['static', 'docker', 'aws'];

/** FERRUM_CLUSTER_TENANT_PROVIDERS: a comma-separated list of providers; `static` is always in. */
function tenantProvidersFrom(raw: string | undefined): string[] {
  const listed = listFrom(raw);
  for (const name of listed) {
    if (!CLUSTER_PROVIDERS.includes(name))
      throw new Error(
        `FERRUM_CLUSTER_TENANT_PROVIDERS entries must be one of ${CLUSTER_PROVIDERS.join(', ')}, got "${name}"`,
      );
  }
  return [...new Set(['static', ...listed])];
}
