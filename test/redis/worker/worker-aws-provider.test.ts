import {
  AssociateAddressCommand,
  DescribeAddressesCommand,
  DescribeInstancesCommand,
  EC2Client,
  EC2ServiceException,
  RunInstancesCommand,
  TerminateInstancesCommand,
  type Instance,
  type RunInstancesCommandInput,
} from '@aws-sdk/client-ec2';
import { Ajv, type ErrorObject } from 'ajv';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { AwsProviderError } from '../../../controller/providers/aws-errors.js';
import { awsOwnerTag } from '../../../controller/providers/aws-owner-tag.js';
import { AwsInstanceProvider } from '../../../controller/providers/aws-provider.js';
import {
  awsAutoscaleSchema,
  withAwsDefaults,
  type AwsAutoscaleInput,
} from '../../../src/worker/clusters/aws-settings.js';
import { validationError } from '../../../api/schema-errors.js';
import { loadConfig } from '../../../src/core/config.js';
import { runnerEnvOf } from '../../../controller/loops/runner-env.js';
import { createRedisClient, KeySpace } from '../../../src/core/redis.js';
import { startTestRedis } from '../../helpers/redis.js';

const ec2 = mockClient(EC2Client);
const OWNER = { key: 'ferrum:owner', value: 'install-1' };
const CLUSTER = 'c0ffee000000000000000001';
const CREDENTIALS = { access_key_id: 'AKIATEST', secret_access_key: 'secret-test' };
/** The operator's side: its Redis (with a password) and encryption key never reach an instance. */
const OPERATOR_CONFIG = loadConfig({
  REDIS_URL: 'redis://:p4ss@10.0.0.5:6379/0',
  FERRUM_ENCRYPTION_KEY: 'operator-secret-key',
});
const RUNNER_ENV = runnerEnvOf(OPERATOR_CONFIG, {
  apiUrl: 'https://ferrum.example',
  runnerToken: 'runner_instance-token',
  clusterId: CLUSTER,
  instanceId: 'inst-1',
  slots: 14,
  memoryBytes: 2048 * 1024 * 1024,
});
const LAUNCH = { clusterId: CLUSTER, instanceId: 'inst-1', runners: 14, runnerEnv: RUNNER_ENV };

function providerWith(input: Partial<AwsAutoscaleInput>, eipWaitSeconds?: number): AwsInstanceProvider {
  const settings = withAwsDefaults({ ...CREDENTIALS, ...input });
  return new AwsInstanceProvider({
    settings,
    ownerTag: OWNER,
    runnerImage: 'registry.example/ferrum:1.2',
    eipWaitSeconds,
  });
}

function awsError(name: string, message: string): EC2ServiceException {
  return new EC2ServiceException({ name, message, $fault: 'client', $metadata: { httpStatusCode: 400 } });
}

function launched(id: string, state = 'pending'): { Instances: Instance[] } {
  return {
    Instances: [{ InstanceId: id, State: { Name: state as 'pending' }, LaunchTime: new Date('2026-11-22T01:00:00Z') }],
  };
}

function reservations(...instances: Instance[]) {
  return { Reservations: [{ Instances: instances }] };
}

function tagged(
  id: string,
  state: string,
  extra: Partial<Instance> = {},
  tags: Record<string, string> = {
    [OWNER.key]: OWNER.value,
    'ferrum:cluster': CLUSTER,
    'ferrum:instance': `runner-of-${id}`,
  },
): Instance {
  return {
    InstanceId: id,
    State: { Name: state as 'running' },
    LaunchTime: new Date('2026-11-22T00:00:00Z'),
    Tags: Object.entries(tags).map(([Key, Value]) => ({ Key, Value })),
    ...extra,
  };
}

function runInput(): RunInstancesCommandInput {
  const calls = ec2.commandCalls(RunInstancesCommand);
  expect(calls).toHaveLength(1);
  return calls[0]!.args[0].input;
}

function tagsOf(input: RunInstancesCommandInput, resource = 'instance'): Record<string, string> {
  const spec = input.TagSpecifications?.find((candidate) => candidate.ResourceType === resource);
  return Object.fromEntries((spec?.Tags ?? []).map((tag) => [tag.Key, tag.Value]));
}

function decodedUserData(input: RunInstancesCommandInput): string {
  expect(input.UserData).toMatch(/^[A-Za-z0-9+/]+=*$/);
  return Buffer.from(input.UserData!, 'base64').toString('utf8');
}

beforeEach(() => {
  ec2.reset();
});

afterAll(() => {
  ec2.restore();
});

describe('launch', () => {
  it('maps every autoscale.aws field onto one RunInstances call', async () => {
    ec2.on(RunInstancesCommand).resolves(launched('i-0abc'));
    const provider = providerWith({
      region: 'eu-west-1',
      instance_type: 'm3.large',
      image_id: 'ami-12345678',
      tags: { team: 'builds', env: 'prod' },
      key_name: 'ops-key',
      subnet_ids: ['subnet-aaa'],
      security_groups: ['default'],
      security_group_ids: ['sg-111', 'sg-222'],
      iam_instance_profile: { name: 'ferrum-runner', arn: 'arn:aws:iam::123456789012:instance-profile/ferrum-runner' },
      block_device_mappings: [
        {
          device_name: '/dev/xvda',
          ebs: {
            snapshot_id: 'snap-1',
            iops: 3000,
            encrypted: true,
            delete_on_termination: true,
            volume_size: 50,
            volume_type: 'gp3',
          },
        },
        { device_name: '/dev/sdb', virtual_name: 'ephemeral0' },
        { device_name: '/dev/sdc', no_device: true },
      ],
      user_data: '#!/bin/sh\necho own script\n',
    });

    const instance = await provider.launch(LAUNCH);

    expect(instance).toEqual({
      providerId: 'i-0abc',
      instanceId: 'inst-1',
      state: 'pending',
      launchedAt: Date.parse('2026-11-22T01:00:00Z'),
    });
    const input = runInput();
    expect(input).toMatchObject({
      MinCount: 1,
      MaxCount: 1,
      ClientToken: 'inst-1',
      ImageId: 'ami-12345678',
      InstanceType: 'm3.large',
      KeyName: 'ops-key',
      SubnetId: 'subnet-aaa',
      SecurityGroups: ['default'],
      SecurityGroupIds: ['sg-111', 'sg-222'],
      IamInstanceProfile: { Arn: 'arn:aws:iam::123456789012:instance-profile/ferrum-runner' },
      BlockDeviceMappings: [
        {
          DeviceName: '/dev/xvda',
          Ebs: {
            SnapshotId: 'snap-1',
            Iops: 3000,
            Encrypted: true,
            DeleteOnTermination: true,
            VolumeSize: 50,
            VolumeType: 'gp3',
          },
        },
        { DeviceName: '/dev/sdb', VirtualName: 'ephemeral0' },
        { DeviceName: '/dev/sdc', NoDevice: '' },
      ],
    });
    expect(input.Placement).toBeUndefined();
    expect(decodedUserData(input)).toBe('#!/bin/sh\necho own script\n');
    const expectedTags = {
      team: 'builds',
      env: 'prod',
      'ferrum:owner': 'install-1',
      'ferrum:cluster': CLUSTER,
      'ferrum:instance': 'inst-1',
    };
    expect(tagsOf(input)).toEqual(expectedTags);
    expect(tagsOf(input, 'volume')).toEqual(expectedTags);
    expect(await ec2.call(0).thisValue.config.region()).toBe('eu-west-1');
  });

  it('applies the spec defaults and adds a Name tag when no tags are given', async () => {
    ec2.on(RunInstancesCommand).resolves(launched('i-0def'));
    const provider = providerWith({});

    await provider.launch(LAUNCH);

    const input = runInput();
    expect(input.InstanceType).toBe('c3.xlarge');
    expect(input.ImageId).toMatch(/^resolve:ssm:\/aws\/service\/ecs\/optimized-ami\//);
    for (const absent of [
      'KeyName',
      'SubnetId',
      'Placement',
      'SecurityGroups',
      'SecurityGroupIds',
      'IamInstanceProfile',
      'BlockDeviceMappings',
    ] as const) {
      expect(input[absent], absent).toBeUndefined();
    }
    expect(tagsOf(input)).toEqual({
      Name: `ferrum-runner ${CLUSTER}`,
      'ferrum:owner': 'install-1',
      'ferrum:cluster': CLUSTER,
      'ferrum:instance': 'inst-1',
    });
    expect(await ec2.call(0).thisValue.config.region()).toBe('us-east-1');
  });

  it('treats an empty tag map as no tags (default Name) and never lets user tags replace the owner tag', async () => {
    ec2.on(RunInstancesCommand).resolves(launched('i-0e'));
    await providerWith({ tags: {} }).launch(LAUNCH);
    expect(tagsOf(runInput()).Name).toBe(`ferrum-runner ${CLUSTER}`);

    ec2.reset();
    ec2.on(RunInstancesCommand).resolves(launched('i-0f'));
    await providerWith({ tags: { 'ferrum:owner': 'someone-else', Name: 'mine' } }).launch(LAUNCH);
    expect(tagsOf(runInput())).toMatchObject({ Name: 'mine', 'ferrum:owner': 'install-1' });
  });

  it('default user_data is a base64 cloud-init script starting the runner with the launch environment', async () => {
    ec2.on(RunInstancesCommand).resolves(launched('i-0ud'));
    await providerWith({}).launch(LAUNCH);

    const script = decodedUserData(runInput());
    expect(script.startsWith('#!/bin/bash\n')).toBe(true);
    for (const [name, value] of Object.entries(RUNNER_ENV)) expect(script).toContain(`\n${name}=${value}\n`);
    expect(script).toContain('systemctl enable --now docker');
    expect(script).toMatch(/docker run -d --name ferrum-runner [^\n]*--network host/);
    expect(script).toContain("'registry.example/ferrum:1.2' runner");
  });

  it('default user_data carries only the API URL and the instance token: no Redis URL, password or key', async () => {
    ec2.on(RunInstancesCommand).resolves(launched('i-0gw'));
    await providerWith({}).launch(LAUNCH);
    const script = decodedUserData(runInput());
    expect(script).toContain('\nFERRUM_API_URL=https://ferrum.example\n');
    expect(script).toContain('\nFERRUM_RUNNER_TOKEN=runner_instance-token\n');
    expect(script).not.toMatch(/REDIS|redis:|p4ss|10\.0\.0\.5|ENCRYPTION|operator-secret-key|KEY_PREFIX/);
  });

  it('refuses runner environments and user_data EC2 cannot take, before calling RunInstances', async () => {
    const provider = providerWith({});
    await expect(provider.launch({ ...LAUNCH, runnerEnv: { REDIS_URL: 'redis://x\nEVIL=1' } })).rejects.toThrow(
      /REDIS_URL must not contain a line break/,
    );
    await expect(provider.launch({ ...LAUNCH, runnerEnv: { 'BAD NAME': 'x' } })).rejects.toThrow(
      /"BAD NAME" is not a valid name/,
    );
    await expect(providerWith({ user_data: 'x'.repeat(16 * 1024 + 1) }).launch(LAUNCH)).rejects.toThrow(
      /user_data is 16385 bytes; EC2 accepts at most 16384/,
    );
    expect(ec2.commandCalls(RunInstancesCommand)).toHaveLength(0);
  });

  it('spreads instances over subnet_ids, the least used subnet next', async () => {
    ec2
      .on(DescribeInstancesCommand)
      .resolves(
        reservations(
          tagged('i-1', 'running', { SubnetId: 'subnet-a' }),
          tagged('i-2', 'pending', { SubnetId: 'subnet-c' }),
          tagged('i-3', 'terminated', { SubnetId: 'subnet-b' }),
        ),
      );
    ec2.on(RunInstancesCommand).resolves(launched('i-4'));

    await providerWith({ subnet_ids: ['subnet-a', 'subnet-b', 'subnet-c'], availability_zones: ['eu-west-1a'] }).launch(
      LAUNCH,
    );

    const input = runInput();
    expect(input.SubnetId).toBe('subnet-b');
    expect(input.Placement).toBeUndefined();
    expect(ec2.commandCalls(DescribeInstancesCommand)[0]!.args[0].input.Filters).toEqual([
      { Name: 'tag:ferrum:owner', Values: ['install-1'] },
      { Name: 'tag:ferrum:cluster', Values: [CLUSTER] },
    ]);
  });

  it('places instances in availability_zones when no subnets are given', async () => {
    ec2
      .on(DescribeInstancesCommand)
      .resolves(reservations(tagged('i-1', 'running', { Placement: { AvailabilityZone: 'us-east-1a' } })));
    ec2.on(RunInstancesCommand).resolves(launched('i-2'));

    await providerWith({ availability_zones: ['us-east-1a', 'us-east-1b'] }).launch(LAUNCH);

    expect(runInput().Placement).toEqual({ AvailabilityZone: 'us-east-1b' });
  });
});

describe('Elastic IPs', () => {
  const ADDRESSES = {
    Addresses: [
      { AllocationId: 'eipalloc-1', PublicIp: '203.0.113.1', AssociationId: 'eipassoc-1' },
      { AllocationId: 'eipalloc-2', PublicIp: '203.0.113.2' },
    ],
  };

  it('associates the first free eip once the instance runs', async () => {
    ec2.on(DescribeAddressesCommand).resolves(ADDRESSES);
    ec2.on(RunInstancesCommand).resolves(launched('i-eip'));
    ec2.on(DescribeInstancesCommand).resolves(reservations(tagged('i-eip', 'running')));
    ec2.on(AssociateAddressCommand).resolves({ AssociationId: 'eipassoc-2' });

    await providerWith({ eips: ['eipalloc-1', 'eipalloc-2'] }).launch(LAUNCH);

    const associations = ec2.commandCalls(AssociateAddressCommand);
    expect(associations).toHaveLength(1);
    expect(associations[0]!.args[0].input).toEqual({
      InstanceId: 'i-eip',
      AllocationId: 'eipalloc-2',
      AllowReassociation: false,
    });
  });

  it('launches nothing when every eip is taken', async () => {
    ec2.on(DescribeAddressesCommand).resolves(ADDRESSES);
    await expect(providerWith({ eips: ['eipalloc-1', '198.51.100.9'] }).launch(LAUNCH)).rejects.toThrow(
      /no free Elastic IP .*eipalloc-1, 198\.51\.100\.9/,
    );
    expect(ec2.commandCalls(RunInstancesCommand)).toHaveLength(0);
  });

  it('terminates the new instance when the eip cannot be associated', async () => {
    ec2.on(DescribeAddressesCommand).resolves(ADDRESSES);
    ec2.on(RunInstancesCommand).resolves(launched('i-lost'));
    ec2.on(DescribeInstancesCommand).resolves(reservations(tagged('i-lost', 'running')));
    ec2
      .on(AssociateAddressCommand)
      .rejects(awsError('Resource.AlreadyAssociated', 'resource eipalloc-2 is already associated'));
    ec2.on(TerminateInstancesCommand).resolves({});

    await expect(providerWith({ eips: ['eipalloc-2'] }).launch(LAUNCH)).rejects.toThrow(
      /AssociateAddress .*Resource\.AlreadyAssociated.*instance i-lost was terminated again/,
    );
    expect(ec2.commandCalls(TerminateInstancesCommand)[0]!.args[0].input).toEqual({ InstanceIds: ['i-lost'] });
  });
});

describe('list', () => {
  it('pages through the instances carrying the owner and cluster tags', async () => {
    const requests: Array<{ filters: unknown; token: string | undefined }> = [];
    const firstPage = { ...reservations(tagged('i-1', 'pending'), tagged('i-2', 'running')), NextToken: 'page-2' };
    const lastPage = reservations(
      tagged('i-3', 'shutting-down'),
      tagged('i-4', 'terminated'),
      tagged('i-5', 'stopped'),
    );
    // The SDK's paginator reuses one input object, so each request is recorded as it is made.
    ec2.on(DescribeInstancesCommand).callsFake((input) => {
      requests.push({ filters: structuredClone(input.Filters), token: input.NextToken });
      return input.NextToken === 'page-2' ? lastPage : firstPage;
    });

    const instances = await providerWith({}).list(CLUSTER);

    const filters = [
      { Name: 'tag:ferrum:owner', Values: ['install-1'] },
      { Name: 'tag:ferrum:cluster', Values: [CLUSTER] },
    ];
    expect(requests).toEqual([
      { filters, token: undefined },
      { filters, token: 'page-2' },
    ]);
    expect(instances.map((instance) => [instance.providerId, instance.instanceId, instance.state])).toEqual([
      ['i-1', 'runner-of-i-1', 'pending'],
      ['i-2', 'runner-of-i-2', 'running'],
      ['i-3', 'runner-of-i-3', 'stopped'],
      ['i-4', 'runner-of-i-4', 'stopped'],
      ['i-5', 'runner-of-i-5', 'stopped'],
    ]);
    expect(instances[0]!.launchedAt).toBe(Date.parse('2026-11-22T00:00:00Z'));
  });

  it('answers an empty list for a cluster without instances', async () => {
    ec2.on(DescribeInstancesCommand).resolves({ Reservations: [] });
    expect(await providerWith({}).list(CLUSTER)).toEqual([]);
  });
});

describe('terminate', () => {
  it('terminates an instance carrying the owner tag', async () => {
    ec2.on(DescribeInstancesCommand).resolves(reservations(tagged('i-own', 'running')));
    ec2.on(TerminateInstancesCommand).resolves({});

    await providerWith({}).terminate(CLUSTER, 'i-own');

    expect(ec2.commandCalls(DescribeInstancesCommand)[0]!.args[0].input).toEqual({ InstanceIds: ['i-own'] });
    expect(ec2.commandCalls(TerminateInstancesCommand)[0]!.args[0].input).toEqual({ InstanceIds: ['i-own'] });
  });

  it('refuses an instance without the owner tag and never calls TerminateInstances', async () => {
    const provider = providerWith({});
    ec2
      .on(DescribeInstancesCommand)
      .resolves(reservations(tagged('i-foreign', 'running', {}, { Name: 'prod-db', 'ferrum:cluster': CLUSTER })));
    await expect(provider.terminate(CLUSTER, 'i-foreign')).rejects.toThrow(
      /refusing to terminate i-foreign: it does not carry the owner tag ferrum:owner=install-1/,
    );

    ec2.reset();
    ec2
      .on(DescribeInstancesCommand)
      .resolves(
        reservations(
          tagged('i-other-install', 'running', {}, { 'ferrum:owner': 'install-2', 'ferrum:cluster': CLUSTER }),
        ),
      );
    await expect(provider.terminate(CLUSTER, 'i-other-install')).rejects.toBeInstanceOf(AwsProviderError);

    ec2.reset();
    ec2
      .on(DescribeInstancesCommand)
      .resolves(
        reservations(
          tagged('i-other-cluster', 'running', {}, { 'ferrum:owner': 'install-1', 'ferrum:cluster': 'another' }),
        ),
      );
    await expect(provider.terminate(CLUSTER, 'i-other-cluster')).rejects.toThrow(
      /belongs to cluster another, not c0ffee/,
    );
    expect(ec2.commandCalls(TerminateInstancesCommand)).toHaveLength(0);
  });

  it('does nothing for an instance that is gone already', async () => {
    const provider = providerWith({});
    ec2
      .on(DescribeInstancesCommand)
      .rejects(awsError('InvalidInstanceID.NotFound', "The instance ID 'i-gone' does not exist"));
    await provider.terminate(CLUSTER, 'i-gone');

    ec2.reset();
    ec2.on(DescribeInstancesCommand).resolves(reservations(tagged('i-done', 'terminated')));
    await provider.terminate(CLUSTER, 'i-done');
    expect(ec2.commandCalls(TerminateInstancesCommand)).toHaveLength(0);
  });
});

describe('AWS errors', () => {
  it('become AwsProviderErrors naming the call, the region, the code and what to do', async () => {
    const provider = providerWith({ region: 'ap-southeast-2' });
    ec2
      .on(RunInstancesCommand)
      .rejects(awsError('AuthFailure', 'AWS was not able to validate the provided access credentials'));
    const failure = await provider.launch(LAUNCH).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(AwsProviderError);
    expect((failure as AwsProviderError).awsCode).toBe('AuthFailure');
    expect((failure as Error).message).toBe(
      "AWS RunInstances in ap-southeast-2 failed (AuthFailure: AWS was not able to validate the provided access credentials); check the cluster's access_key_id and secret_access_key",
    );

    ec2.reset();
    ec2
      .on(RunInstancesCommand)
      .rejects(
        awsError(
          'InstanceLimitExceeded',
          'You have requested more instances (21) than your current instance limit of 20 allows',
        ),
      );
    await expect(provider.launch(LAUNCH)).rejects.toThrow(
      /InstanceLimitExceeded: .*lower runners_max or raise the limit/,
    );
  });

  it('covers list, terminate and errors that are not AWS answers', async () => {
    const provider = providerWith({});
    ec2
      .on(DescribeInstancesCommand)
      .rejects(awsError('UnauthorizedOperation', 'You are not authorized to perform this operation.'));
    await expect(provider.list(CLUSTER)).rejects.toThrow(
      /AWS DescribeInstances in us-east-1 failed \(UnauthorizedOperation: .*\); the credentials must allow/,
    );
    await expect(provider.terminate(CLUSTER, 'i-1')).rejects.toThrow(/AWS DescribeInstances .*UnauthorizedOperation/);

    ec2.reset();
    ec2.on(DescribeInstancesCommand).resolves(reservations(tagged('i-1', 'running')));
    ec2.on(TerminateInstancesCommand).rejects(awsError('RequestLimitExceeded', 'Request limit exceeded.'));
    await expect(provider.terminate(CLUSTER, 'i-1')).rejects.toThrow(
      /AWS TerminateInstances in us-east-1 failed \(RequestLimitExceeded: .*\); EC2 is throttling/,
    );

    ec2.reset();
    ec2.on(RunInstancesCommand).rejects(new Error('connect ETIMEDOUT 52.94.0.1:443'));
    await expect(provider.launch(LAUNCH)).rejects.toThrow(
      'AWS RunInstances in us-east-1 failed (connect ETIMEDOUT 52.94.0.1:443)',
    );
  });
});

describe('owner tag', () => {
  let redisServer: Awaited<ReturnType<typeof startTestRedis>>;
  let redis: ReturnType<typeof createRedisClient>;

  beforeAll(async () => {
    redisServer = await startTestRedis();
    redis = createRedisClient(redisServer.url, 'aws-owner-test');
  });

  afterEach(async () => {
    await redis.flushdb();
  });

  afterAll(async () => {
    redis.disconnect();
    await redisServer.stop();
  });

  it('defaults to ferrum:owner=<installation id>, the same id for every controller', async () => {
    const config = loadConfig({}).aws;
    const keys = new KeySpace('ferrum:');
    const [first, second] = await Promise.all([awsOwnerTag(config, redis, keys), awsOwnerTag(config, redis, keys)]);
    expect(first.key).toBe('ferrum:owner');
    expect(first.value).toMatch(/^[0-9a-f]{24}$/);
    expect(second).toEqual(first);
    expect(await redis.get('ferrum:installation:id')).toBe(first.value);
  });

  it('takes FERRUM_AWS_OWNER_TAG as key=value and refuses anything else', async () => {
    const config = loadConfig({ FERRUM_AWS_OWNER_TAG: 'team:owner=ci=1' }).aws;
    expect(await awsOwnerTag(config, redis, new KeySpace('ferrum:'))).toEqual({ key: 'team:owner', value: 'ci=1' });
    expect(await redis.exists('ferrum:installation:id')).toBe(0);
    expect(() => loadConfig({ FERRUM_AWS_OWNER_TAG: 'no-value-separator' })).toThrow(
      /FERRUM_AWS_OWNER_TAG must be key=value/,
    );
    expect(() => loadConfig({ FERRUM_AWS_OWNER_TAG: '=value' })).toThrow(/FERRUM_AWS_OWNER_TAG must be key=value/);
  });
});

describe('autoscale.aws schema', () => {
  const validate = new Ajv({ coerceTypes: false, strict: false }).compile(awsAutoscaleSchema);

  function problem(body: unknown): string | undefined {
    if (validate(body)) return undefined;
    const error = validationError(validate.errors as ErrorObject[], 'body');
    return `${error.statusCode} ${error.message}`;
  }

  it('accepts every spec field', () => {
    expect(
      problem({
        ...CREDENTIALS,
        region: 'us-gov-west-1',
        instance_type: 'm7i-flex.large',
        image_id: 'ami-1',
        tags: { team: 'a' },
        key_name: 'k',
        subnet_ids: ['subnet-1'],
        availability_zones: ['us-gov-west-1a'],
        security_groups: ['default'],
        security_group_ids: ['sg-1'],
        eips: ['eipalloc-1'],
        iam_instance_profile: { name: 'p', arn: 'arn:aws:iam::1:instance-profile/p' },
        block_device_mappings: [
          { device_name: '/dev/xvda', no_device: false, ebs: { volume_size: 20, volume_type: 'gp3', encrypted: true } },
        ],
        user_data: '#!/bin/sh',
      }),
    ).toBeUndefined();
  });

  it('names the field of each kind of bad input', () => {
    expect(problem({ access_key_id: 'a' })).toBe('406 secret_access_key is required');
    expect(problem({ ...CREDENTIALS, region: 'Mars' })).toMatch(/^400 region must match pattern/);
    expect(problem({ ...CREDENTIALS, instance_type: 7 })).toBe('400 instance_type must be a string');
    expect(problem({ ...CREDENTIALS, subnet_ids: 'subnet-1' })).toBe('400 subnet_ids must be a list');
    expect(problem({ ...CREDENTIALS, tags: { team: 1 } })).toBe('400 tags.team must be a string');
    expect(problem({ ...CREDENTIALS, tags: { 'aws:x': 'y' } })).toBe(
      '400 tags must match pattern "^(?!aws:|ferrum:).{1,128}$"',
    );
    expect(problem({ ...CREDENTIALS, tags: { 'ferrum:owner': 'me' } })).toMatch(/^400 tags must match pattern/);
    expect(problem({ ...CREDENTIALS, tags: { ['k'.repeat(129)]: 'v' } })).toMatch(/^400 tags must match pattern/);
    expect(problem({ ...CREDENTIALS, iam_instance_profile: { arn: 'not-an-arn' } })).toMatch(
      /^400 iam_instance_profile.arn must match/,
    );
    expect(problem({ ...CREDENTIALS, block_device_mappings: [{}] })).toBe(
      '406 block_device_mappings[0].device_name is required',
    );
    expect(
      problem({ ...CREDENTIALS, block_device_mappings: [{ device_name: '/dev/sdb', ebs: { volume_type: 'floppy' } }] }),
    ).toMatch(/^400 block_device_mappings\[0\].ebs.volume_type must be one of: standard, io1/);
    expect(problem({ ...CREDENTIALS, user_data: 'x'.repeat(16385) })).toMatch(
      /^400 user_data must be at most 16384 characters/,
    );
    expect(problem({ ...CREDENTIALS, colour: 'red' })).toMatch(/^400 body must NOT have additional properties/);
  });
});
