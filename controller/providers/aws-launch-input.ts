import type { BlockDeviceMapping, RunInstancesCommandInput, Tag, TagSpecification } from '@aws-sdk/client-ec2';
import type { LaunchRequest } from './instance-provider.js';
import type { AwsOwnerTag } from './aws-owner-tag.js';
import type { AwsAutoscaleSettings, AwsBlockDeviceMapping } from '../../src/worker/clusters/aws-settings.js';
import { defaultRunnerUserData, encodeUserData } from './aws-user-data.js';

export const CLUSTER_TAG = 'ferrum:cluster';
export const INSTANCE_TAG = 'ferrum:instance';

/** Where one instance goes: a subnet (which implies its zone) or else a zone, or neither. */
export interface AwsPlacement {
  subnetId?: string;
  availabilityZone?: string;
}

export interface LaunchInputParts {
  settings: AwsAutoscaleSettings;
  ownerTag: AwsOwnerTag;
  runnerImage: string;
  request: LaunchRequest;
  placement: AwsPlacement;
}

/**
 * The user's tags, then Ferrum's own (which win: the owner tag must be exactly right);
 * a default `Name` only when the user gave no tags, as the spec says.
 */
export function instanceTags(parts: LaunchInputParts): Tag[] {
  const { settings, ownerTag, request } = parts;
  const tags: Record<string, string> = settings.tags ?? { Name: `ferrum-runner ${request.clusterId}` };
  const all = {
    ...tags,
    [ownerTag.key]: ownerTag.value,
    [CLUSTER_TAG]: request.clusterId,
    [INSTANCE_TAG]: request.instanceId,
  };
  return Object.entries(all).map(([Key, Value]) => ({ Key, Value }));
}

function tagSpecifications(tags: Tag[]): TagSpecification[] {
  return [
    { ResourceType: 'instance', Tags: tags },
    { ResourceType: 'volume', Tags: tags },
  ];
}

function blockDeviceMapping(mapping: AwsBlockDeviceMapping): BlockDeviceMapping {
  const { ebs } = mapping;
  const noDevice =
    mapping.no_device === true ? '' : typeof mapping.no_device === 'string' ? mapping.no_device : undefined;
  return {
    DeviceName: mapping.device_name,
    NoDevice: noDevice,
    VirtualName: mapping.virtual_name,
    Ebs: ebs && {
      SnapshotId: ebs.snapshot_id,
      Iops: ebs.iops,
      Encrypted: ebs.encrypted,
      DeleteOnTermination: ebs.delete_on_termination,
      VolumeSize: ebs.volume_size,
      VolumeType: ebs.volume_type as NonNullable<BlockDeviceMapping['Ebs']>['VolumeType'],
    },
  };
}

function iamInstanceProfile(settings: AwsAutoscaleSettings): RunInstancesCommandInput['IamInstanceProfile'] {
  const profile = settings.iam_instance_profile;
  if (profile === undefined || (profile.arn === undefined && profile.name === undefined)) return undefined;
  // EC2 takes one of the two; the ARN names the profile unambiguously.
  return profile.arn !== undefined ? { Arn: profile.arn } : { Name: profile.name };
}

function nonEmpty<T>(list: T[]): T[] | undefined {
  return list.length > 0 ? list : undefined;
}

function userData(parts: LaunchInputParts): string {
  const script =
    parts.settings.user_data ?? defaultRunnerUserData({ image: parts.runnerImage, runnerEnv: parts.request.runnerEnv });
  return encodeUserData(script);
}

/** Every `autoscale.aws` field mapped onto one RunInstances call launching exactly one instance. */
export function runInstancesInput(parts: LaunchInputParts): RunInstancesCommandInput {
  const { settings, placement } = parts;
  return {
    MinCount: 1,
    MaxCount: 1,
    // One runner instance id is one launch: a retried request never starts a second machine.
    ClientToken: parts.request.instanceId,
    ImageId: settings.image_id,
    InstanceType: settings.instance_type as RunInstancesCommandInput['InstanceType'],
    KeyName: settings.key_name,
    SubnetId: placement.subnetId,
    Placement: placement.availabilityZone !== undefined ? { AvailabilityZone: placement.availabilityZone } : undefined,
    SecurityGroups: nonEmpty(settings.security_groups),
    SecurityGroupIds: nonEmpty(settings.security_group_ids),
    IamInstanceProfile: iamInstanceProfile(settings),
    BlockDeviceMappings: nonEmpty(settings.block_device_mappings.map(blockDeviceMapping)),
    UserData: userData(parts),
    TagSpecifications: tagSpecifications(instanceTags(parts)),
    // A runner that shuts itself down is gone for good; the autoscaler launches a fresh one.
    InstanceInitiatedShutdownBehavior: 'terminate',
  };
}
