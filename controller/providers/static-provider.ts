import type { RunnerRegistry } from '../../src/worker/clusters/runners/runner-registry.js';
import type { InstanceProvider, LaunchRequest, ProviderInstance } from './instance-provider.js';

/** Runners that register by themselves are the instances: nothing is launched or terminated here. */
export class StaticInstanceProvider implements InstanceProvider {
  readonly kind = 'static' as const;

  constructor(private readonly runners: RunnerRegistry) {}

  launch(request: LaunchRequest): Promise<ProviderInstance> {
    return Promise.reject(
      new Error(`cluster ${request.clusterId} is static: its runners register by themselves, none is launched`),
    );
  }

  /** A retired static runner stops by itself once drained; there is no machine to terminate. */
  async terminate(): Promise<void> {}

  async list(clusterId: string): Promise<ProviderInstance[]> {
    const { instances } = await this.runners.runnersOf(clusterId);
    return instances.map((runner) => ({
      providerId: runner.instance_id,
      instanceId: runner.instance_id,
      state: 'running',
      launchedAt: runner.created_at,
    }));
  }
}
