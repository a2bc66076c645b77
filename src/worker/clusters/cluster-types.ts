import type { AwsAutoscaleInput, AwsBlockDeviceMapping } from './aws-settings.js';

/** The built-in public cluster every project may use; it has no record. */
export const DEFAULT_CLUSTER = 'default';

/** Where a cluster's instances come from (an extension: the spec knows only `aws`). */
export const PROVIDER_KINDS = ['docker', 'aws', 'static'] as const;
export type ProviderKind = (typeof PROVIDER_KINDS)[number];

export type BlockDeviceMapping = AwsBlockDeviceMapping;

/** The `autoscale.aws` settings as stored: everything but the credentials, region and type filled in. */
export type AwsClusterSettings = Omit<
  AwsAutoscaleInput,
  'access_key_id' | 'secret_access_key' | 'region' | 'instance_type'
> & {
  region: string;
  instance_type: string;
};

/** What the aws provider is constructed from: the settings with the credentials decrypted. */
export type AwsProviderSettings = AwsClusterSettings & {
  access_key_id: string;
  secret_access_key: string;
  docker_auth?: string;
  docker_email?: string;
};

export interface AutoscaleSettings {
  provider: ProviderKind;
  disable: boolean;
  runners_min: number;
  runners_max: number;
  runners_per_instance: number;
  docker_email?: string;
  aws?: AwsClusterSettings;
}

/** A user-made cluster without its secrets: safe to show its owner. */
export interface Cluster {
  id: string;
  user_id: string;
  name: string;
  /** Bytes per job runner. */
  memory: number;
  /** Bytes per job runner. */
  disk: number;
  cpu_share: number;
  /** Ids of the users who may direct their projects' tasks to the cluster. */
  shared_to: string[];
  /**
   * Shares made by e-mail address: address → the user's id, or '' while no user has it (the
   * user gets the share when created); shown as the addresses, so no answer tells which exist.
   */
  shared_emails?: Record<string, string>;
  autoscale: AutoscaleSettings;
  created_at: number;
  updated_at: number;
}

/** Secrets of a cluster: stored sealed, never returned. */
export interface ClusterSecrets {
  access_key_id?: string;
  secret_access_key?: string;
  docker_auth?: string;
}

/** A create or update request as the API passes it on (already type-checked). */
export interface ClusterInput {
  name?: string;
  memory?: number;
  disk?: number;
  cpu_share?: number;
  shared_to?: string[];
  shared_emails?: Record<string, string>;
  autoscale?: {
    provider?: ProviderKind;
    disable?: boolean;
    runners_min?: number;
    runners_max?: number;
    runners_per_instance?: number;
    docker_auth?: string;
    docker_email?: string;
    aws?: Partial<AwsClusterSettings> & { access_key_id?: string; secret_access_key?: string };
  };
}
