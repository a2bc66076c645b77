import { VERSION } from '../version.js';
import { type Env, listFrom, nonEmpty } from './env.js';
import { defineSettings, fractionOf, intOf, textOf } from './setting.js';

export const CLUSTER_SETTINGS = defineSettings({
  FERRUM_AUTOSCALER_INTERVAL_MS: {
    fallback: 10_000,
    meaning:
      'how often the leader controller scales clusters and moves instances along ADD → LIVE → KILL → TERMINATE (`0` = off)',
  },
  FERRUM_AUTOSCALER_COOLDOWN_MS: {
    fallback: 60_000,
    meaning: 'how long a surplus of instances must last before one is retired (one at a time)',
  },
  FERRUM_AUTOSCALER_BOOT_TIMEOUT_MS: {
    fallback: 300_000,
    meaning: 'an instance whose runner has not registered by then is retired',
  },
  FERRUM_AUTOSCALER_TERMINATED_RETENTION_MS: {
    fallback: 3_600_000,
    meaning: 'how long TERMINATE instances stay in stats',
  },
  FERRUM_AUTOSCALER_MAX_LAUNCH_PER_CLUSTER: {
    fallback: 5,
    meaning: 'most instances one autoscaler pass launches for one cluster',
  },
  FERRUM_AUTOSCALER_MAX_LAUNCH_PER_PASS: {
    fallback: 20,
    meaning: 'most instances one autoscaler pass launches over all clusters',
  },
  FERRUM_CLUSTER_TENANT_MAX_RUNNERS: {
    fallback: 20,
    meaning: "largest `runners_min` / `runners_max` of a non-admin token's cluster (above: 400)",
  },
  FERRUM_CLUSTER_TENANT_MAX_CLUSTERS: {
    fallback: 50,
    meaning: 'how many clusters one non-admin user may own (above: 403)',
  },
  FERRUM_CLUSTER_MAX_RUNNER_TOKENS: {
    fallback: 100,
    meaning:
      "how many runner tokens `POST /2/clusters/{id}/tokens` lets a cluster have (above: 403; the autoscaler's per-instance tokens are not refused)",
  },
  FERRUM_AWS_EIP_WAIT_SECONDS: {
    fallback: 300,
    meaning: 'how long a launch with `eips` waits for the instance to run before associating an address',
  },
  FERRUM_AUTOSCALER_DOCKER_IMAGE: {
    fallback: 'ferrum',
    meaning: 'image the `docker` provider runs as `ferrum runner`',
  },
  FERRUM_AUTOSCALER_DOCKER_SOCKET: {
    fallback: '/var/run/docker.sock',
    meaning: 'Docker socket mounted into the runner containers of the `docker` provider',
  },
  FERRUM_AUTOSCALER_RUNNER_API_URL: {
    shown: "the controller's listening URL",
    meaning: 'runner API URL launched runners (gateway mode) reach',
  },
  FERRUM_CLUSTER_TENANT_PROVIDERS: {
    shown: 'empty (`static` only)',
    meaning:
      'cluster providers non-admin tokens may choose, comma-separated (`docker`, `aws`); `docker` and `aws` start containers or machines, so they are for admins unless listed here (a refusal is a 403 naming the rule)',
  },
  FERRUM_AWS_OWNER_TAG: {
    shown: '`ferrum:owner=<installation id>` (id made once, kept in Redis)',
    meaning: '`key=value` tag on every EC2 instance Ferrum launches; only instances carrying it are ever terminated',
  },
  FERRUM_AWS_ENDPOINT: {
    shown: "the region's own",
    meaning: 'EC2 API endpoint override (private endpoint, emulator)',
  },
  FERRUM_AWS_RUNNER_IMAGE: {
    shown: "`ferrum:<version>` (this release's, from `package.json`)",
    meaning:
      'Ferrum image the default `user_data` runs as `ferrum runner` on each instance; must be pullable from the instance',
  },
  FERRUM_AUTOSCALER_EWMA_ALPHA: {
    fallback: 0.3,
    meaning: "weight of the newest demand figure (queued + busy runners) in a cluster's `ewma`, in (0, 1]",
  },
});

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
    intervalMs: intOf(env, CLUSTER_SETTINGS.FERRUM_AUTOSCALER_INTERVAL_MS),
    ewmaAlpha: fractionOf(env, CLUSTER_SETTINGS.FERRUM_AUTOSCALER_EWMA_ALPHA),
    cooldownMs: intOf(env, CLUSTER_SETTINGS.FERRUM_AUTOSCALER_COOLDOWN_MS),
    bootTimeoutMs: Math.max(1000, intOf(env, CLUSTER_SETTINGS.FERRUM_AUTOSCALER_BOOT_TIMEOUT_MS)),
    terminatedRetentionMs: intOf(env, CLUSTER_SETTINGS.FERRUM_AUTOSCALER_TERMINATED_RETENTION_MS),
    dockerImage: textOf(env, CLUSTER_SETTINGS.FERRUM_AUTOSCALER_DOCKER_IMAGE),
    dockerSocket: textOf(env, CLUSTER_SETTINGS.FERRUM_AUTOSCALER_DOCKER_SOCKET),
    runnerApiUrl: nonEmpty(env.FERRUM_AUTOSCALER_RUNNER_API_URL),
    maxLaunchPerCluster: Math.max(1, intOf(env, CLUSTER_SETTINGS.FERRUM_AUTOSCALER_MAX_LAUNCH_PER_CLUSTER)),
    maxLaunchPerPass: Math.max(1, intOf(env, CLUSTER_SETTINGS.FERRUM_AUTOSCALER_MAX_LAUNCH_PER_PASS)),
  };
}

export function readClusterPolicy(env: Env): ClusterPolicyConfig {
  return {
    tenantProviders: tenantProvidersFrom(env.FERRUM_CLUSTER_TENANT_PROVIDERS),
    tenantMaxRunners: intOf(env, CLUSTER_SETTINGS.FERRUM_CLUSTER_TENANT_MAX_RUNNERS),
    tenantMaxClusters: intOf(env, CLUSTER_SETTINGS.FERRUM_CLUSTER_TENANT_MAX_CLUSTERS),
    maxRunnerTokens: intOf(env, CLUSTER_SETTINGS.FERRUM_CLUSTER_MAX_RUNNER_TOKENS),
  };
}

export function readAwsConfig(env: Env): AwsConfig {
  return {
    ownerTag: ownerTagFrom(env.FERRUM_AWS_OWNER_TAG),
    endpoint: nonEmpty(env.FERRUM_AWS_ENDPOINT),
    runnerImage: env.FERRUM_AWS_RUNNER_IMAGE || `ferrum:${VERSION}`,
    eipWaitSeconds: Math.max(1, intOf(env, CLUSTER_SETTINGS.FERRUM_AWS_EIP_WAIT_SECONDS)),
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
