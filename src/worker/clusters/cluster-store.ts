import type { RedisClient } from '../../core/redis.js';
import { conflict, notFound } from '../../core/errors.js';
import { loadLua } from '../../core/lua.js';
import type { AwsProviderSettings, Cluster, ClusterSecrets } from './cluster-types.js';
import type { WorkerKeys } from '../keys.js';
import type { SecretBox } from '../../core/secret-box.js';

const updateScript = loadLua(import.meta.url, 'update-cluster');
const MAX_UPDATE_ATTEMPTS = 5;

/** A stored cluster with what it takes to change it safely. */
export interface StoredCluster {
  cluster: Cluster;
  secrets: ClusterSecrets;
  rev: string;
}

/**
 * User-made clusters: a hash per cluster (record JSON, AES-256-GCM sealed secrets, revision)
 * and a set of every cluster id, all under one hash tag.
 */
export class ClusterStore {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: WorkerKeys,
    private readonly box: SecretBox,
  ) {}

  async create(cluster: Cluster, secrets: ClusterSecrets): Promise<void> {
    await this.redis
      .multi()
      .hset(
        this.keys.cluster(cluster.id),
        'record',
        JSON.stringify(cluster),
        'secrets',
        this.box.seal(JSON.stringify(secrets)),
        'rev',
        '0',
      )
      .sadd(this.keys.clusterIndex(), cluster.id)
      .exec();
  }

  async find(clusterId: string): Promise<StoredCluster | null> {
    const [record, sealed, rev] = await this.redis.hmget(this.keys.cluster(clusterId), 'record', 'secrets', 'rev');
    if (!record || !sealed || rev === null || rev === undefined) return null;
    return {
      cluster: JSON.parse(record) as Cluster,
      secrets: JSON.parse(this.box.open(sealed)) as ClusterSecrets,
      rev,
    };
  }

  async get(clusterId: string): Promise<StoredCluster> {
    const stored = await this.find(clusterId);
    if (!stored) throw notFound(`Cluster ${clusterId} not found`);
    return stored;
  }

  /** Every user-made cluster, secrets left sealed. */
  async all(): Promise<Cluster[]> {
    const ids = (await this.redis.smembers(this.keys.clusterIndex())).sort();
    if (ids.length === 0) return [];
    const pipeline = this.redis.pipeline();
    for (const id of ids) pipeline.hget(this.keys.cluster(id), 'record');
    const results = (await pipeline.exec()) ?? [];
    return results.flatMap(([, record]) => (typeof record === 'string' ? [JSON.parse(record) as Cluster] : []));
  }

  /** Read, change, and save if unchanged meanwhile; `change` runs again after a concurrent update. */
  async update(
    clusterId: string,
    change: (stored: StoredCluster) => { cluster: Cluster; secrets: ClusterSecrets },
  ): Promise<Cluster> {
    for (let attempt = 0; attempt < MAX_UPDATE_ATTEMPTS; attempt++) {
      const stored = await this.get(clusterId);
      const next = change(stored);
      const saved = await updateScript.run(
        this.redis,
        [this.keys.cluster(clusterId)],
        [stored.rev, JSON.stringify(next.cluster), this.box.seal(JSON.stringify(next.secrets))],
      );
      if (saved === 1) return next.cluster;
      if (saved === -1) throw notFound(`Cluster ${clusterId} not found`);
    }
    throw conflict(`Cluster ${clusterId} is being changed by other requests; try again`);
  }

  async delete(clusterId: string): Promise<void> {
    await this.redis.multi().del(this.keys.cluster(clusterId)).srem(this.keys.clusterIndex(), clusterId).exec();
  }
}

export type { AwsProviderSettings } from './cluster-types.js';

/** What the aws provider of a cluster is constructed from: its aws settings with the credentials decrypted. */
export function awsProviderSettingsOf(stored: StoredCluster): AwsProviderSettings | undefined {
  const { aws, docker_email } = stored.cluster.autoscale;
  const { access_key_id, secret_access_key, docker_auth } = stored.secrets;
  if (!aws || !access_key_id || !secret_access_key) return undefined;
  return { ...aws, access_key_id, secret_access_key, docker_auth, docker_email };
}
