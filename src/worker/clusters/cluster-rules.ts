import { fail } from '../../core/errors.js';
import type {
  AutoscaleSettings,
  AwsClusterSettings,
  Cluster,
  ClusterInput,
  ClusterSecrets,
  ProviderKind,
} from './cluster-types.js';

const MB = 1024 * 1024;
const GB = 1024 * MB;

export const CLUSTER_DEFAULTS = {
  memory: 512 * MB,
  disk: 10 * GB,
  cpu_share: 1,
  runners_min: 0,
  runners_max: 10,
  region: 'us-east-1',
  instance_type: 'c3.xlarge',
} as const;

/** Memory (MiB) of the instance types the default runners_per_instance is derived for. */
const INSTANCE_MEMORY_MB: Record<string, number> = {
  'm3.medium': 3840,
  'm3.large': 7680,
  'm3.xlarge': 15360,
  'm3.2xlarge': 30720,
  'c3.large': 3840,
  'c3.xlarge': 7680,
  'c3.2xlarge': 15360,
  'c3.4xlarge': 30720,
  'c3.8xlarge': 61440,
  'r3.large': 15616,
  'r3.xlarge': 31232,
  'r3.2xlarge': 62464,
  'r3.4xlarge': 124928,
  'r3.8xlarge': 249856,
};
/** Memory an instance keeps for its system and the runner daemon. */
const INSTANCE_RESERVED_MB = 512;

/** Runners that fit an instance: c3.xlarge with 512 MB runners gives 14, as the spec says. */
function defaultRunnersPerInstance(
  provider: ProviderKind,
  aws: AwsClusterSettings | undefined,
  memory: number,
): number {
  const instanceMb = provider === 'aws' && aws ? INSTANCE_MEMORY_MB[aws.instance_type] : undefined;
  if (instanceMb === undefined) return 1;
  return Math.max(1, Math.floor(((instanceMb - INSTANCE_RESERVED_MB) * MB) / memory));
}

type InputAutoscale = NonNullable<ClusterInput['autoscale']>;
type InputAws = NonNullable<InputAutoscale['aws']>;

function awsSettingsOf(
  old: AwsClusterSettings | undefined,
  input: InputAws | undefined,
): AwsClusterSettings | undefined {
  if (!old && !input) return undefined;
  const { access_key_id: _key, secret_access_key: _secret, ...given } = input ?? {};
  const merged: AwsClusterSettings = {
    region: CLUSTER_DEFAULTS.region,
    instance_type: CLUSTER_DEFAULTS.instance_type,
    ...old,
    ...given,
  };
  // Tags merge into the old ones, overwriting equal keys.
  if (old?.tags || given.tags) merged.tags = { ...old?.tags, ...given.tags };
  return merged;
}

function providerOf(
  old: AutoscaleSettings | undefined,
  input: InputAutoscale | undefined,
  aws: AwsClusterSettings | undefined,
): ProviderKind {
  // Giving autoscale.aws (the only documented cloud) chooses the aws provider without naming it.
  return input?.provider ?? (input?.aws ? 'aws' : undefined) ?? old?.provider ?? (aws ? 'aws' : 'static');
}

function withoutAws(settings: AutoscaleSettings | undefined): Partial<AutoscaleSettings> {
  if (!settings) return {};
  const { aws: _aws, ...rest } = settings;
  return rest;
}

function autoscaleOf(old: Cluster | undefined, input: InputAutoscale | undefined, memory: number): AutoscaleSettings {
  const aws = awsSettingsOf(old?.autoscale.aws, input?.aws);
  const provider = providerOf(old?.autoscale, input, aws);
  const { docker_auth: _auth, aws: _aws, ...plain } = input ?? {};
  const settings: AutoscaleSettings = {
    disable: false,
    runners_min: CLUSTER_DEFAULTS.runners_min,
    runners_max: CLUSTER_DEFAULTS.runners_max,
    runners_per_instance: defaultRunnersPerInstance(provider, aws, memory),
    ...withoutAws(old?.autoscale),
    ...plain,
    provider,
  };
  // Settings of aws stay while the provider is aws or when given again.
  if (aws && (provider === 'aws' || input?.aws)) settings.aws = aws;
  return settings;
}

function secretsOf(old: ClusterSecrets, input: InputAutoscale | undefined): ClusterSecrets {
  const secrets = { ...old };
  if (input?.aws?.access_key_id !== undefined) secrets.access_key_id = input.aws.access_key_id;
  if (input?.aws?.secret_access_key !== undefined) secrets.secret_access_key = input.aws.secret_access_key;
  if (input?.docker_auth !== undefined) secrets.docker_auth = input.docker_auth;
  return secrets;
}

function checkAutoscale(autoscale: AutoscaleSettings, secrets: ClusterSecrets): void {
  if (autoscale.runners_min > autoscale.runners_max) {
    throw fail('cluster_runners_min_over_max', autoscale.runners_min, autoscale.runners_max);
  }
  if (autoscale.provider !== 'aws') {
    if (autoscale.aws) throw fail('cluster_aws_settings_misplaced', autoscale.provider);
    return;
  }
  if (!autoscale.aws) throw fail('cluster_aws_settings_missing');
  for (const field of ['access_key_id', 'secret_access_key'] as const) {
    if (!secrets[field]) throw fail('field_required', `autoscale.aws.${field}`);
  }
  if (!secrets.docker_auth) throw fail('field_required', 'autoscale.docker_auth');
  if (!autoscale.docker_email) throw fail('field_required', 'autoscale.docker_email');
}

/** Who asks and what the operator lets tenants do (FERRUM_CLUSTER_TENANT_*); admins are not bound. */
export interface ClusterPolicy {
  admin: boolean;
  tenantProviders: readonly string[];
  tenantMaxRunners: number;
}

/** Providers that start machines or containers are the operator's unless allowed; tenants' sizes are capped. */
function checkPolicy(autoscale: AutoscaleSettings, policy: ClusterPolicy): void {
  if (policy.admin) return;
  if (!policy.tenantProviders.includes(autoscale.provider)) {
    throw fail('cluster_provider_operators_only', autoscale.provider, policy.tenantProviders);
  }
  for (const field of ['runners_min', 'runners_max'] as const) {
    if (autoscale[field] > policy.tenantMaxRunners)
      throw fail('cluster_tenant_runners_over_cap', field, policy.tenantMaxRunners);
  }
}

export interface ResolvedCluster {
  cluster: Cluster;
  secrets: ClusterSecrets;
}

/**
 * A cluster as a create (`old` undefined) or update request makes it: defaults filled in,
 * given fields replacing old ones, aws tags merged, secrets kept apart; checked as a whole.
 */
export function resolveCluster(
  base: { id: string; user_id: string; now: number },
  input: ClusterInput & { shared_to?: string[] },
  policy: ClusterPolicy,
  old?: { cluster: Cluster; secrets: ClusterSecrets },
): ResolvedCluster {
  const name = input.name ?? old?.cluster.name;
  if (name === undefined) throw fail('field_required', 'name');
  if (name.trim() === '') throw fail('field_empty', 'name');
  const memory = input.memory ?? old?.cluster.memory ?? CLUSTER_DEFAULTS.memory;
  const cluster: Cluster = {
    id: base.id,
    user_id: base.user_id,
    name,
    memory,
    disk: input.disk ?? old?.cluster.disk ?? CLUSTER_DEFAULTS.disk,
    cpu_share: input.cpu_share ?? old?.cluster.cpu_share ?? CLUSTER_DEFAULTS.cpu_share,
    shared_to: input.shared_to ?? old?.cluster.shared_to ?? [],
    shared_emails: input.shared_to ? (input.shared_emails ?? {}) : (old?.cluster.shared_emails ?? {}),
    autoscale: autoscaleOf(old?.cluster, input.autoscale, memory),
    created_at: old?.cluster.created_at ?? base.now,
    updated_at: base.now,
  };
  const secrets = secretsOf(old?.secrets ?? {}, input.autoscale);
  // A tenant that names no runners_max gets the default within its cap.
  if (!policy.admin && input.autoscale?.runners_max === undefined && !old)
    cluster.autoscale.runners_max = Math.min(cluster.autoscale.runners_max, policy.tenantMaxRunners);
  checkPolicy(cluster.autoscale, policy);
  checkAutoscale(cluster.autoscale, secrets);
  return { cluster, secrets };
}

/** The built-in public cluster, shown though it has no record: runners register to it by themselves. */
export function defaultClusterView(): Cluster {
  return {
    id: 'default',
    user_id: '',
    name: 'default',
    memory: CLUSTER_DEFAULTS.memory,
    disk: CLUSTER_DEFAULTS.disk,
    cpu_share: CLUSTER_DEFAULTS.cpu_share,
    shared_to: [],
    autoscale: { provider: 'static', disable: true, runners_min: 0, runners_max: 0, runners_per_instance: 1 },
    created_at: 0,
    updated_at: 0,
  };
}
