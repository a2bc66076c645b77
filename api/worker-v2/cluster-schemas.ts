import { awsAutoscaleSchema } from '../../src/worker/clusters/aws-settings.js';
import { PROVIDER_KINDS } from '../../src/worker/clusters/cluster-types.js';
import { INSTANCE_TYPES } from '../../src/worker/clusters/instances/instance-store.js';

/** JSON schemas of the clusters API: requests (secrets accepted) and responses (secrets absent). */

const strings = { type: 'array', items: { type: 'string' } } as const;

const awsSettingsProperties = {
  region: { type: 'string', minLength: 1 },
  instance_type: { type: 'string', minLength: 1 },
  image_id: { type: 'string', minLength: 1 },
  tags: { type: 'object', additionalProperties: { type: 'string' } },
  key_name: { type: 'string' },
  subnet_ids: strings,
  availability_zones: strings,
  security_groups: strings,
  security_group_ids: strings,
  eips: strings,
  iam_instance_profile: { type: 'object', properties: { name: { type: 'string' }, arn: { type: 'string' } } },
  block_device_mappings: {
    type: 'array',
    items: {
      type: 'object',
      properties: {
        device_name: { type: 'string' },
        no_device: { type: 'string' },
        virtual_name: { type: 'string' },
        ebs: {
          type: 'object',
          properties: {
            snapshot_id: { type: 'string' },
            iops: { type: 'integer', minimum: 0 },
            encrypted: { type: 'boolean' },
            delete_on_termination: { type: 'boolean' },
            volume_size: { type: 'integer', minimum: 1 },
            volume_type: { type: 'string' },
          },
        },
      },
    },
  },
  user_data: { type: 'string' },
} as const;

const autoscaleProperties = {
  provider: { type: 'string', enum: [...PROVIDER_KINDS] },
  disable: { type: 'boolean' },
  runners_min: { type: 'integer', minimum: 0 },
  runners_max: { type: 'integer', minimum: 0 },
  runners_per_instance: { type: 'integer', minimum: 1 },
  docker_email: { type: 'string' },
} as const;

const clusterRequestProperties = {
  name: { type: 'string' },
  memory: { type: 'integer', minimum: 1 },
  disk: { type: 'integer', minimum: 1 },
  cpu_share: { type: 'number', exclusiveMinimum: 0 },
  shared_to: { type: 'array', items: { type: 'string', minLength: 1 }, maxItems: 100 },
  autoscale: {
    type: 'object',
    properties: {
      ...autoscaleProperties,
      docker_auth: { type: 'string', minLength: 1 },
      // Credentials are required for aws clusters by the cluster rules, not here: an update may send only tags.
      aws: { type: 'object', additionalProperties: false, properties: awsAutoscaleSchema.properties },
    },
  },
} as const;

export const createClusterBody = { type: 'object', required: ['name'], properties: clusterRequestProperties } as const;
export const updateClusterBody = { type: 'object', properties: clusterRequestProperties } as const;

export const clusterParams = {
  type: 'object',
  required: ['cluster_id'],
  properties: { cluster_id: { type: 'string', minLength: 1, maxLength: 64 } },
} as const;

export const runnerTokenParams = {
  type: 'object',
  required: ['cluster_id', 'token_id'],
  properties: {
    cluster_id: clusterParams.properties.cluster_id,
    token_id: { type: 'string', minLength: 1, maxLength: 64 },
  },
} as const;

const runnerTokenProperties = {
  id: { type: 'string' },
  created_at: { type: 'string' },
  instance_id: { type: 'string' },
} as const;

/** A new runner token: the only answer that shows its secret. */
export const runnerTokenResponse = {
  type: 'object',
  required: ['token'],
  properties: {
    token: {
      type: 'object',
      required: ['id', 'created_at', 'token'],
      properties: { ...runnerTokenProperties, token: { type: 'string' } },
    },
  },
} as const;

/** Runner tokens as listed: never their secrets. */
export const runnerTokenListResponse = {
  type: 'object',
  required: ['tokens'],
  properties: {
    tokens: {
      type: 'array',
      items: { type: 'object', required: ['id', 'created_at'], properties: runnerTokenProperties },
    },
  },
} as const;

const listEntryProperties = {
  id: { type: 'string' },
  name: { type: 'string' },
  user_id: { type: 'string' },
  memory: { type: 'integer' },
  disk: { type: 'integer' },
  disk_space: { type: 'integer' },
  cpu_share: { type: 'number' },
} as const;

export const instanceSchema = {
  type: 'object',
  properties: {
    instance_id: { type: 'string' },
    type: { type: 'string', enum: [...INSTANCE_TYPES] },
    runners_total: { type: 'integer' },
    runners_available: { type: 'integer' },
    version: { type: 'string' },
    created_at: { type: 'string' },
    updated_at: { type: 'string' },
  },
} as const;

const listEntryRequired = ['id', 'name', 'user_id', 'memory', 'disk', 'disk_space', 'cpu_share'] as const;

export const clusterSchema = {
  type: 'object',
  required: [...listEntryRequired, 'machines', 'runners_total', 'runners_available', 'shared_to'],
  properties: {
    ...listEntryProperties,
    machines: { type: 'array', items: instanceSchema },
    runners_total: { type: 'integer' },
    runners_available: { type: 'integer' },
    shared_to: strings,
    autoscale: {
      type: 'object',
      properties: { ...autoscaleProperties, aws: { type: 'object', properties: awsSettingsProperties } },
    },
    created_at: { type: 'string' },
    updated_at: { type: 'string' },
  },
} as const;

export const clusterListSchema = {
  type: 'object',
  required: ['clusters'],
  properties: {
    clusters: {
      type: 'array',
      items: { type: 'object', required: listEntryRequired, properties: listEntryProperties },
    },
  },
} as const;

export const clusterResponse = {
  type: 'object',
  required: ['cluster'],
  properties: { msg: { type: 'string' }, cluster: clusterSchema },
} as const;

export const clusterStatsResponse = {
  type: 'object',
  required: ['cluster'],
  properties: {
    cluster: {
      type: 'object',
      required: ['ewma', 'queued', 'runners_total', 'runners_available', 'instances'],
      properties: {
        ewma: { type: 'number' },
        queued: { type: 'integer' },
        runners_total: { type: 'integer' },
        runners_available: { type: 'integer' },
        instances: { type: 'array', items: instanceSchema },
      },
    },
  },
} as const;

/** The runners heartbeating in a cluster and the tasks each runs now. */
export const clusterRunnersResponse = {
  type: 'object',
  required: ['runners'],
  properties: {
    runners: {
      type: 'array',
      items: {
        type: 'object',
        required: ['instance_id', 'hostname', 'version', 'slots', 'busy', 'tasks', 'created_at', 'updated_at'],
        properties: {
          instance_id: { type: 'string' },
          hostname: { type: 'string' },
          version: { type: 'string' },
          slots: { type: 'integer' },
          busy: { type: 'integer' },
          tasks: { type: 'array', items: { type: 'string' } },
          created_at: { type: 'string' },
          updated_at: { type: 'string' },
        },
      },
    },
  },
} as const;
