/** Why an AWS provider call failed, in words an operator can act on. */
export class AwsProviderError extends Error {
  constructor(
    message: string,
    /** The EC2 error code (`AuthFailure`, `InstanceLimitExceeded`, ...) when AWS answered with one. */
    readonly awsCode?: string,
  ) {
    super(message);
    this.name = 'AwsProviderError';
  }
}

const HINTS: Record<string, string> = {
  AuthFailure: "check the cluster's access_key_id and secret_access_key",
  InvalidClientTokenId: "check the cluster's access_key_id",
  SignatureDoesNotMatch: "check the cluster's secret_access_key",
  UnauthorizedOperation: 'the credentials must allow creating, tagging, describing and terminating instances',
  InstanceLimitExceeded: "the account's instance limit is reached; lower runners_max or raise the limit",
  VcpuLimitExceeded: "the account's vCPU limit is reached; lower runners_max or raise the limit",
  RequestLimitExceeded: 'EC2 is throttling requests; the autoscaler will try again',
  InsufficientInstanceCapacity:
    'AWS has no capacity for this instance type here; try other availability zones or subnets',
  InvalidAMIID: "check the cluster's image_id",
  'InvalidAMIID.NotFound': "check the cluster's image_id",
  'InvalidSubnetID.NotFound': "check the cluster's subnet_ids",
  'InvalidGroup.NotFound': "check the cluster's security groups",
  'InvalidKeyPair.NotFound': "check the cluster's key_name",
};

function errorCode(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const { Code, name } = error as { Code?: unknown; name?: unknown };
  if (typeof Code === 'string') return Code;
  return typeof name === 'string' && name !== 'Error' ? name : undefined;
}

/** Wraps whatever an EC2 call threw into an AwsProviderError naming the call, the region and a hint. */
export function awsCallError(operation: string, region: string, error: unknown): AwsProviderError {
  if (error instanceof AwsProviderError) return error;
  const code = errorCode(error);
  const detail = error instanceof Error ? error.message : String(error);
  const hint = code !== undefined ? HINTS[code] : undefined;
  const what = code !== undefined ? `${code}: ${detail}` : detail;
  return new AwsProviderError(`AWS ${operation} in ${region} failed (${what})${hint ? `; ${hint}` : ''}`, code);
}
