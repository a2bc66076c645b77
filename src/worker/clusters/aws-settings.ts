/** An EBS volume of a block device mapping (spec: `autoscale.aws.block_device_mappings[].ebs`). */
export interface AwsEbsSettings {
  snapshot_id?: string;
  iops?: number;
  encrypted?: boolean;
  delete_on_termination?: boolean;
  /** GiB. */
  volume_size?: number;
  volume_type?: string;
}

export interface AwsBlockDeviceMapping {
  device_name: string;
  /** true (or EC2's own empty string) suppresses the device the image would map there. */
  no_device?: boolean | string;
  virtual_name?: string;
  ebs?: AwsEbsSettings;
}

export interface AwsIamInstanceProfile {
  name?: string;
  arn?: string;
}

/** `autoscale.aws` of a cluster as the user sent it (secrets already decrypted). */
export interface AwsAutoscaleInput {
  region?: string;
  access_key_id: string;
  secret_access_key: string;
  instance_type?: string;
  image_id?: string;
  tags?: Record<string, string>;
  key_name?: string;
  subnet_ids?: string[];
  availability_zones?: string[];
  security_groups?: string[];
  security_group_ids?: string[];
  eips?: string[];
  iam_instance_profile?: AwsIamInstanceProfile;
  block_device_mappings?: AwsBlockDeviceMapping[];
  user_data?: string;
}

/** `autoscale.aws` with every default applied: what the AWS provider is built from. */
export interface AwsAutoscaleSettings {
  region: string;
  access_key_id: string;
  secret_access_key: string;
  instance_type: string;
  image_id: string;
  /** Undefined when the user gave none: only then do instances get a default `Name` tag. */
  tags: Record<string, string> | undefined;
  key_name: string | undefined;
  subnet_ids: string[];
  availability_zones: string[];
  security_groups: string[];
  security_group_ids: string[];
  eips: string[];
  iam_instance_profile: AwsIamInstanceProfile | undefined;
  block_device_mappings: AwsBlockDeviceMapping[];
  /** Undefined: the provider's default cloud-init script that starts a Ferrum runner. */
  user_data: string | undefined;
}

export const DEFAULT_AWS_REGION = 'us-east-1';
export const DEFAULT_AWS_INSTANCE_TYPE = 'c3.xlarge';
/**
 * The latest ECS-optimized Amazon Linux 2023 image (Docker preinstalled), resolved by EC2 itself
 * from the public SSM parameter, so one default works in every region.
 */
export const DEFAULT_AWS_IMAGE_ID = 'resolve:ssm:/aws/service/ecs/optimized-ami/amazon-linux-2023/recommended/image_id';

function nonEmptyString(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}

function hasAny(tags: Record<string, string> | undefined): tags is Record<string, string> {
  return tags !== undefined && Object.keys(tags).length > 0;
}

/** Applies the spec's defaults; an empty tag map counts as no tags given. */
export function withAwsDefaults(input: AwsAutoscaleInput): AwsAutoscaleSettings {
  return {
    region: nonEmptyString(input.region) ?? DEFAULT_AWS_REGION,
    access_key_id: input.access_key_id,
    secret_access_key: input.secret_access_key,
    instance_type: nonEmptyString(input.instance_type) ?? DEFAULT_AWS_INSTANCE_TYPE,
    image_id: nonEmptyString(input.image_id) ?? DEFAULT_AWS_IMAGE_ID,
    tags: hasAny(input.tags) ? { ...input.tags } : undefined,
    key_name: nonEmptyString(input.key_name),
    subnet_ids: [...(input.subnet_ids ?? [])],
    availability_zones: [...(input.availability_zones ?? [])],
    security_groups: [...(input.security_groups ?? [])],
    security_group_ids: [...(input.security_group_ids ?? [])],
    eips: [...(input.eips ?? [])],
    iam_instance_profile: input.iam_instance_profile,
    block_device_mappings: [...(input.block_device_mappings ?? [])],
    user_data: nonEmptyString(input.user_data),
  };
}

const stringList = { type: 'array', items: { type: 'string', minLength: 1 } } as const;

/**
 * JSON schema of `autoscale.aws` in a create or update cluster request, for the clusters API
 * (bodies are not type-coerced, so a wrong type is a 400 naming the field).
 */
export const awsAutoscaleSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['access_key_id', 'secret_access_key'],
  properties: {
    region: { type: 'string', pattern: '^[a-z]{2}(-[a-z]+)+-[0-9]+$' },
    access_key_id: { type: 'string', minLength: 1 },
    secret_access_key: { type: 'string', minLength: 1 },
    instance_type: { type: 'string', pattern: '^[a-z0-9-]+\\.[a-z0-9]+$' },
    image_id: { type: 'string', minLength: 1 },
    tags: {
      type: 'object',
      maxProperties: 40,
      // EC2 reserves aws:, Ferrum its own ferrum: tags (the owner tag must not be forged).
      propertyNames: { pattern: '^(?!aws:|ferrum:).{1,128}$' },
      additionalProperties: { type: 'string', maxLength: 256 },
    },
    key_name: { type: 'string' },
    subnet_ids: stringList,
    availability_zones: stringList,
    security_groups: stringList,
    security_group_ids: stringList,
    eips: stringList,
    iam_instance_profile: {
      type: 'object',
      additionalProperties: false,
      properties: { name: { type: 'string', minLength: 1 }, arn: { type: 'string', pattern: '^arn:' } },
    },
    block_device_mappings: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['device_name'],
        properties: {
          device_name: { type: 'string', minLength: 1 },
          no_device: { type: ['boolean', 'string'] },
          virtual_name: { type: 'string', pattern: '^ephemeral[0-9]+$' },
          ebs: {
            type: 'object',
            additionalProperties: false,
            properties: {
              snapshot_id: { type: 'string', minLength: 1 },
              iops: { type: 'integer', minimum: 1 },
              encrypted: { type: 'boolean' },
              delete_on_termination: { type: 'boolean' },
              volume_size: { type: 'integer', minimum: 1 },
              volume_type: { type: 'string', enum: ['standard', 'io1', 'io2', 'gp2', 'gp3', 'sc1', 'st1'] },
            },
          },
        },
      },
    },
    user_data: { type: 'string', maxLength: 16384 },
  },
} as const;
