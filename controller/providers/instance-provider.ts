/** One machine (or container) that a provider launched for a cluster. */
export interface ProviderInstance {
  /** The provider's own id for it: a container id, an EC2 instance id, a runner id. */
  providerId: string;
  /** The runner instance id the runner(s) on it register with (FERRUM_RUNNER_INSTANCE_ID). */
  instanceId: string;
  state: 'pending' | 'running' | 'stopped';
  launchedAt: number;
}

export interface LaunchRequest {
  clusterId: string;
  /** The runner instance id the launched runner must register with. */
  instanceId: string;
  /** Task slots the instance's runner should offer. */
  runners: number;
  /** The environment the runner on the instance needs: REDIS_URL, FERRUM_RUNNER_CLUSTER, FERRUM_RUNNER_INSTANCE_ID, FERRUM_RUNNER_SLOTS, ... */
  runnerEnv: Record<string, string>;
}

/** Where a cluster's instances come from: a Docker engine, a cloud, or runners that register themselves. */
export interface InstanceProvider {
  readonly kind: 'docker' | 'aws' | 'static';
  launch(request: LaunchRequest): Promise<ProviderInstance>;
  /** Terminates one instance; never touches an instance this installation did not launch. */
  terminate(clusterId: string, providerId: string): Promise<void>;
  /** The instances of the cluster the provider knows of. */
  list(clusterId: string): Promise<ProviderInstance[]>;
}
