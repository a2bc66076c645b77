import type Docker from 'dockerode';
import { awsProviderSettingsOf, type StoredCluster } from '../../src/worker/clusters/cluster-store.js';
import type { RunnerRegistry } from '../../src/worker/clusters/runners/runner-registry.js';
import { DockerInstanceProvider, type DockerProviderOptions } from './docker-provider.js';
import { withAwsDefaults, type AwsAutoscaleSettings } from '../../src/worker/clusters/aws-settings.js';
import type { AwsInstanceProvider } from './aws-provider.js';
import type { AwsOwnerTag } from './aws-owner-tag.js';
import type { InstanceProvider } from './instance-provider.js';
import { StaticInstanceProvider } from './static-provider.js';

/** What every aws provider of this installation shares. */
export interface AwsProviderDefaults {
  ownerTag: AwsOwnerTag;
  runnerImage: string;
  endpoint?: string;
  eipWaitSeconds: number;
}

export interface ProviderLogger {
  warn(details: object, message: string): void;
}

/** Picks the provider of a cluster's instances by its `autoscale.provider`. */
export class InstanceProviders {
  private readonly docker: DockerInstanceProvider;
  private readonly fixed: StaticInstanceProvider;
  /** One EC2 client per aws cluster, made anew when its settings change. */
  private readonly awsByCluster = new Map<string, { settingsJson: string; provider: AwsInstanceProvider }>();

  constructor(
    deps: { docker: Docker; runners: RunnerRegistry } & DockerProviderOptions,
    private readonly aws: AwsProviderDefaults,
    private readonly log: ProviderLogger,
  ) {
    this.docker = new DockerInstanceProvider(deps.docker, deps);
    this.fixed = new StaticInstanceProvider(deps.runners);
  }

  /** The cluster's provider; null when it cannot be had (logged), so the cluster is left as it is. */
  async providerFor(stored: StoredCluster): Promise<InstanceProvider | null> {
    const { cluster } = stored;
    switch (cluster.autoscale.provider) {
      case 'docker':
        return this.docker;
      case 'static':
        return this.fixed;
      case 'aws': {
        const settings = awsProviderSettingsOf(stored);
        if (!settings) {
          this.log.warn({ cluster: cluster.id }, 'aws cluster without credentials: the cluster is not scaled');
          return null;
        }
        return this.awsProviderOf(cluster.id, withAwsDefaults(settings));
      }
    }
  }

  private async awsProviderOf(clusterId: string, settings: AwsAutoscaleSettings): Promise<AwsInstanceProvider> {
    const settingsJson = JSON.stringify(settings);
    const known = this.awsByCluster.get(clusterId);
    if (known?.settingsJson === settingsJson) return known.provider;
    known?.provider.destroy();
    // The AWS SDK is large: installations without aws clusters never load it.
    const { AwsInstanceProvider } = await import('./aws-provider.js');
    const provider = new AwsInstanceProvider({ ...this.aws, settings });
    this.awsByCluster.set(clusterId, { settingsJson, provider });
    return provider;
  }

  close(): void {
    for (const { provider } of this.awsByCluster.values()) provider.destroy();
    this.awsByCluster.clear();
  }
}
