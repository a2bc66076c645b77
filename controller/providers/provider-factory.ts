import type Docker from 'dockerode';
import { awsProviderSettingsOf, type StoredCluster } from '../../src/worker/cluster-store.js';
import type { RunnerRegistry } from '../../src/worker/runner-registry.js';
import { DockerInstanceProvider, type DockerProviderOptions } from './docker-provider.js';
import type { InstanceProvider } from './instance-provider.js';
import { StaticInstanceProvider } from './static-provider.js';

export interface ProviderLogger {
  warn(details: object, message: string): void;
}

/** Picks the provider of a cluster's instances by its `autoscale.provider`. */
export class InstanceProviders {
  private readonly docker: DockerInstanceProvider;
  private readonly fixed: StaticInstanceProvider;

  constructor(
    deps: { docker: Docker; runners: RunnerRegistry } & DockerProviderOptions,
    private readonly log: ProviderLogger,
  ) {
    this.docker = new DockerInstanceProvider(deps.docker, deps);
    this.fixed = new StaticInstanceProvider(deps.runners);
  }

  /** The cluster's provider; null when it cannot be had (logged), so the cluster is left as it is. */
  providerFor(stored: StoredCluster): InstanceProvider | null {
    const { cluster } = stored;
    switch (cluster.autoscale.provider) {
      case 'docker':
        return this.docker;
      case 'static':
        return this.fixed;
      case 'aws': {
        const settings = awsProviderSettingsOf(stored);
        // The aws provider (AwsInstanceProvider, from these settings and the owner tag) is constructed here once merged.
        this.log.warn({ cluster: cluster.id, region: settings?.region }, 'aws provider not available: the cluster is not scaled');
        return null;
      }
    }
  }
}
