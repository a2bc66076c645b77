import {
  AssociateAddressCommand,
  DescribeAddressesCommand,
  DescribeInstancesCommand,
  EC2Client,
  paginateDescribeInstances,
  RunInstancesCommand,
  TerminateInstancesCommand,
  waitUntilInstanceRunning,
  type Address,
  type Filter,
  type Instance,
  type Tag,
} from '@aws-sdk/client-ec2';
import type { InstanceProvider, LaunchRequest, ProviderInstance } from './instance-provider.js';
import { AwsProviderError, awsCallError } from './aws-errors.js';
import { CLUSTER_TAG, INSTANCE_TAG, runInstancesInput, type AwsPlacement } from './aws-launch-input.js';
import type { AwsOwnerTag } from './aws-owner-tag.js';
import type { AwsAutoscaleSettings } from '../../src/worker/clusters/aws-settings.js';

export interface AwsProviderOptions {
  /** The cluster's `autoscale.aws`, decrypted, defaults applied (`withAwsDefaults`). */
  settings: AwsAutoscaleSettings;
  ownerTag: AwsOwnerTag;
  /** The Ferrum image the default user_data runs as the instance's runner. */
  runnerImage: string;
  /** An EC2 endpoint instead of the region's own. */
  endpoint?: string;
  /** How long a launch with `eips` waits for the instance to run before associating one. */
  eipWaitSeconds?: number;
}

const INSTANCE_STATES: Record<string, ProviderInstance['state']> = {
  pending: 'pending',
  running: 'running',
};

function tagMap(tags: Tag[] | undefined): Record<string, string> {
  return Object.fromEntries((tags ?? []).map((tag) => [tag.Key ?? '', tag.Value ?? '']));
}

function toProviderInstance(instance: Instance & { InstanceId: string }, instanceId: string): ProviderInstance {
  return {
    providerId: instance.InstanceId,
    instanceId,
    // shutting-down, terminated, stopping and stopped all mean: no runner there any more.
    state: INSTANCE_STATES[instance.State?.Name ?? ''] ?? 'stopped',
    launchedAt: instance.LaunchTime?.getTime() ?? Date.now(),
  };
}

function isLive(instance: Instance): boolean {
  const state = instance.State?.Name;
  return state === 'pending' || state === 'running';
}

/** The candidate used by the fewest live instances; ties go to the earliest in the list. */
function leastUsed(candidates: string[], usedBy: (instance: Instance) => string | undefined, live: Instance[]): string {
  const counts = new Map(candidates.map((candidate) => [candidate, 0]));
  for (const instance of live) {
    const used = usedBy(instance);
    if (used !== undefined && counts.has(used)) counts.set(used, (counts.get(used) ?? 0) + 1);
  }
  return candidates.reduce((best, candidate) =>
    (counts.get(candidate) ?? 0) < (counts.get(best) ?? 0) ? candidate : best,
  );
}

/**
 * Cluster instances as EC2 instances. Every instance it launches carries the installation's owner
 * tag and the cluster's tag; it lists only those, and terminates nothing without them.
 */
export class AwsInstanceProvider implements InstanceProvider {
  readonly kind = 'aws' as const;
  private readonly ec2: EC2Client;
  private readonly settings: AwsAutoscaleSettings;

  constructor(private readonly options: AwsProviderOptions) {
    this.settings = options.settings;
    this.ec2 = new EC2Client({
      region: options.settings.region,
      credentials: { accessKeyId: options.settings.access_key_id, secretAccessKey: options.settings.secret_access_key },
      endpoint: options.endpoint,
      maxAttempts: 3,
    });
  }

  async launch(request: LaunchRequest): Promise<ProviderInstance> {
    const eip = await this.freeEip();
    const placement = await this.placementFor(request.clusterId);
    const input = runInstancesInput({
      settings: this.settings,
      ownerTag: this.options.ownerTag,
      runnerImage: this.options.runnerImage,
      request,
      placement,
    });
    const output = await this.call('RunInstances', () => this.ec2.send(new RunInstancesCommand(input)));
    const instance = output.Instances?.[0];
    if (instance?.InstanceId === undefined) {
      throw new AwsProviderError(`AWS RunInstances in ${this.settings.region} answered without an instance`);
    }
    if (eip !== undefined) await this.associateEip(instance.InstanceId, eip);
    return toProviderInstance({ ...instance, InstanceId: instance.InstanceId }, request.instanceId);
  }

  async list(clusterId: string): Promise<ProviderInstance[]> {
    const instances = await this.clusterInstances(clusterId);
    return instances.map((instance) =>
      toProviderInstance(instance, tagMap(instance.Tags)[INSTANCE_TAG] ?? instance.InstanceId),
    );
  }

  async terminate(clusterId: string, providerId: string): Promise<void> {
    const instance = await this.describeOne(providerId);
    if (instance === undefined || instance.State?.Name === 'terminated') return;
    this.assertOwned(instance, clusterId, providerId);
    await this.call('TerminateInstances', () =>
      this.ec2.send(new TerminateInstancesCommand({ InstanceIds: [providerId] })),
    );
  }

  /** Closes the SDK client's connections. */
  destroy(): void {
    this.ec2.destroy();
  }

  private assertOwned(instance: Instance, clusterId: string, providerId: string): void {
    const tags = tagMap(instance.Tags);
    const { key, value } = this.options.ownerTag;
    if (tags[key] !== value) {
      throw new AwsProviderError(
        `refusing to terminate ${providerId}: it does not carry the owner tag ${key}=${value}, so this installation did not launch it`,
      );
    }
    if (tags[CLUSTER_TAG] !== clusterId) {
      throw new AwsProviderError(
        `refusing to terminate ${providerId}: it belongs to cluster ${tags[CLUSTER_TAG] ?? '(none)'}, not ${clusterId}`,
      );
    }
  }

  private ownedBy(clusterId: string): Filter[] {
    const { key, value } = this.options.ownerTag;
    return [
      { Name: `tag:${key}`, Values: [value] },
      { Name: `tag:${CLUSTER_TAG}`, Values: [clusterId] },
    ];
  }

  private async clusterInstances(clusterId: string): Promise<Array<Instance & { InstanceId: string }>> {
    const instances: Array<Instance & { InstanceId: string }> = [];
    const pages = paginateDescribeInstances({ client: this.ec2, pageSize: 1000 }, { Filters: this.ownedBy(clusterId) });
    await this.call('DescribeInstances', async () => {
      for await (const page of pages) {
        for (const reservation of page.Reservations ?? []) {
          for (const instance of reservation.Instances ?? []) {
            if (instance.InstanceId !== undefined) instances.push({ ...instance, InstanceId: instance.InstanceId });
          }
        }
      }
    });
    return instances;
  }

  /** One instance by id; undefined when EC2 no longer knows it. */
  private async describeOne(providerId: string): Promise<Instance | undefined> {
    try {
      const output = await this.ec2.send(new DescribeInstancesCommand({ InstanceIds: [providerId] }));
      return output.Reservations?.flatMap((reservation) => reservation.Instances ?? []).find(
        (instance) => instance.InstanceId === providerId,
      );
    } catch (error) {
      if ((error as { name?: string }).name === 'InvalidInstanceID.NotFound') return undefined;
      throw awsCallError('DescribeInstances', this.settings.region, error);
    }
  }

  /** Spreads instances over subnet_ids (or, without subnets, availability_zones): the least used one next. */
  private async placementFor(clusterId: string): Promise<AwsPlacement> {
    const { subnet_ids: subnets, availability_zones: zones } = this.settings;
    if (subnets.length === 0 && zones.length === 0) return {};
    if (subnets.length === 1) return { subnetId: subnets[0] };
    if (subnets.length === 0 && zones.length === 1) return { availabilityZone: zones[0] };
    const live = (await this.clusterInstances(clusterId)).filter(isLive);
    if (subnets.length > 0) return { subnetId: leastUsed(subnets, (instance) => instance.SubnetId, live) };
    return { availabilityZone: leastUsed(zones, (instance) => instance.Placement?.AvailabilityZone, live) };
  }

  /** The first of the cluster's eips not associated yet; checked before launching so no launch is wasted. */
  private async freeEip(): Promise<Address | undefined> {
    const { eips, region } = this.settings;
    if (eips.length === 0) return undefined;
    const output = await this.call('DescribeAddresses', () => this.ec2.send(new DescribeAddressesCommand({})));
    const addresses = output.Addresses ?? [];
    for (const eip of eips) {
      const address = addresses.find((candidate) => candidate.AllocationId === eip || candidate.PublicIp === eip);
      if (address !== undefined && address.AssociationId === undefined) return address;
    }
    throw new AwsProviderError(
      `no free Elastic IP for a new instance in ${region}: each of ${eips.join(', ')} is associated already or unknown`,
    );
  }

  /** EC2 associates an address only with a running instance; a launch that cannot get its EIP is undone. */
  private async associateEip(instanceId: string, address: Address): Promise<void> {
    const maxWaitTime = this.options.eipWaitSeconds ?? 300;
    try {
      const pollSeconds = Math.min(5, maxWaitTime / 2);
      await waitUntilInstanceRunning(
        { client: this.ec2, maxWaitTime, minDelay: pollSeconds, maxDelay: Math.max(pollSeconds, 15) },
        { InstanceIds: [instanceId] },
      );
      await this.ec2.send(
        new AssociateAddressCommand({
          InstanceId: instanceId,
          AllocationId: address.AllocationId,
          PublicIp: address.AllocationId === undefined ? address.PublicIp : undefined,
          AllowReassociation: false,
        }),
      );
    } catch (error) {
      const cause = awsCallError('AssociateAddress', this.settings.region, error);
      const undone = await this.undoLaunch(instanceId);
      throw new AwsProviderError(`${cause.message}; ${undone}`, cause.awsCode);
    }
  }

  /** Terminates an instance this launch just made; says how that went (the launch error matters more). */
  private async undoLaunch(instanceId: string): Promise<string> {
    try {
      await this.call('TerminateInstances', () =>
        this.ec2.send(new TerminateInstancesCommand({ InstanceIds: [instanceId] })),
      );
      return `instance ${instanceId} was terminated again`;
    } catch (error) {
      return `terminating instance ${instanceId} again failed too: ${(error as Error).message}`;
    }
  }

  private async call<T>(operation: string, run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      throw awsCallError(operation, this.settings.region, error);
    }
  }
}
