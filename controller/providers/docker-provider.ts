import fs from 'node:fs';
import type Docker from 'dockerode';
import type { InstanceProvider, LaunchRequest, ProviderInstance } from './instance-provider.js';

export const INSTANCE_LABELS = {
  owner: 'ferrum.instance.owner',
  cluster: 'ferrum.instance.cluster',
  id: 'ferrum.instance.id',
} as const;

export interface DockerProviderOptions {
  /** The Ferrum image; its `runner` command is the instance's runner. */
  image: string;
  /** The engine's socket on this machine, mounted into the runner so it can run tasks. */
  socketPath: string;
  /** Names this installation; only containers carrying it are ever listed or terminated. */
  ownerId: string;
}

function stateOf(dockerState: string): ProviderInstance['state'] {
  if (dockerState === 'running') return 'running';
  return dockerState === 'created' || dockerState === 'restarting' ? 'pending' : 'stopped';
}

function isNotFound(error: unknown): boolean {
  return (error as { statusCode?: number }).statusCode === 404;
}

/** An instance is a runner container from the Ferrum image on the local engine, on the host network. */
export class DockerInstanceProvider implements InstanceProvider {
  readonly kind = 'docker' as const;

  constructor(
    private readonly docker: Docker,
    private readonly options: DockerProviderOptions,
  ) {}

  async launch(request: LaunchRequest): Promise<ProviderInstance> {
    const { image, socketPath, ownerId } = this.options;
    const container = await this.docker.createContainer({
      name: `ferrum-instance-${request.instanceId}`,
      Image: image,
      Cmd: ['runner'],
      Env: Object.entries(request.runnerEnv).map(([name, value]) => `${name}=${value}`),
      Labels: {
        [INSTANCE_LABELS.owner]: ownerId,
        [INSTANCE_LABELS.cluster]: request.clusterId,
        [INSTANCE_LABELS.id]: request.instanceId,
      },
      HostConfig: {
        NetworkMode: 'host',
        Binds: [`${socketPath}:/var/run/docker.sock`],
        // The image runs unprivileged: the socket's group lets it reach the engine.
        GroupAdd: [String(fs.statSync(socketPath).gid)],
      },
    });
    await container.start();
    return { providerId: container.id, instanceId: request.instanceId, state: 'pending', launchedAt: Date.now() };
  }

  async terminate(clusterId: string, providerId: string): Promise<void> {
    const container = this.docker.getContainer(providerId);
    let labels: Record<string, string>;
    try {
      labels = (await container.inspect()).Config.Labels ?? {};
    } catch (error) {
      if (isNotFound(error)) return;
      throw error;
    }
    if (labels[INSTANCE_LABELS.owner] !== this.options.ownerId || labels[INSTANCE_LABELS.cluster] !== clusterId) {
      throw new Error(
        `container ${providerId} is not an instance of cluster ${clusterId} launched by this installation; left alone`,
      );
    }
    try {
      await container.remove({ force: true });
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
  }

  async list(clusterId: string): Promise<ProviderInstance[]> {
    const containers = await this.docker.listContainers({
      all: true,
      filters: {
        label: [`${INSTANCE_LABELS.owner}=${this.options.ownerId}`, `${INSTANCE_LABELS.cluster}=${clusterId}`],
      },
    });
    return containers.map((info) => ({
      providerId: info.Id,
      instanceId: info.Labels[INSTANCE_LABELS.id] ?? '',
      state: stateOf(info.State),
      launchedAt: info.Created * 1000,
    }));
  }
}
