import type { ChainableCommander } from 'ioredis';
import type { RedisClient } from '../../core/redis.js';
import { fail } from '../../core/errors.js';
import { scripts } from './scripts.js';
import type { AwsProviderSettings, Cluster, ClusterSecrets } from './cluster-types.js';
import type { WorkerKeys } from '../keys.js';
import type { SecretBox } from '../../core/secret-box.js';
import { Removals } from '../../core/removals.js';

const MAX_UPDATE_ATTEMPTS = 5;

/** A stored cluster with what it takes to change it safely. */
export interface StoredCluster {
  cluster: Cluster;
  secrets: ClusterSecrets;
  rev: string;
}

/**
 * User-made clusters: a hash per cluster (record JSON, AES-256-GCM sealed secrets, revision),
 * a set of every cluster id, and per user a set of the clusters it owns or has shared to it,
 * all under one hash tag (so one MULTI or script keeps them together).
 */
export class ClusterStore {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: WorkerKeys,
    private readonly box: SecretBox,
  ) {}

  async create(cluster: Cluster, secrets: ClusterSecrets): Promise<void> {
    const multi = this.redis
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
      .sadd(this.keys.clusterIndex(), cluster.id);
    this.indexUsers(multi, cluster);
    await multi.exec();
  }

  private indexUsers(multi: ChainableCommander, cluster: Cluster): void {
    for (const userId of usersOf(cluster)) multi.sadd(this.keys.userClusters(userId), cluster.id);
  }

  /** The cluster's record without opening its sealed secrets (access checks on every task post). */
  async record(clusterId: string): Promise<Cluster | null> {
    const record = await this.redis.hget(this.keys.cluster(clusterId), 'record');
    return record ? (JSON.parse(record) as Cluster) : null;
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
    if (!stored) throw fail('cluster_not_found', clusterId);
    return stored;
  }

  /** Every user-made cluster, secrets left sealed. */
  async all(): Promise<Cluster[]> {
    return this.records((await this.redis.smembers(this.keys.clusterIndex())).sort());
  }

  /** The clusters a user owns or has shared to it, secrets left sealed. */
  async ofUser(userId: string): Promise<Cluster[]> {
    const ids = (await this.redis.smembers(this.keys.userClusters(userId))).sort();
    return (await this.records(ids)).filter((cluster) => usersOf(cluster).includes(userId));
  }

  private async records(ids: string[]): Promise<Cluster[]> {
    if (ids.length === 0) return [];
    const pipeline = this.redis.pipeline();
    for (const id of ids) pipeline.hget(this.keys.cluster(id), 'record');
    const results = (await pipeline.exec()) ?? [];
    return results.flatMap(([, record]) => (typeof record === 'string' ? [JSON.parse(record) as Cluster] : []));
  }

  /** Puts every cluster in its users' indexes, once (clusters an earlier version made have none). */
  async indexEarlierClusters(): Promise<void> {
    if ((await this.redis.exists(this.keys.userClustersIndexed())) === 1) return;
    let cursor = '0';
    do {
      const [next, ids] = await this.redis.sscan(this.keys.clusterIndex(), cursor, 'COUNT', 200);
      cursor = next;
      const multi = this.redis.multi();
      for (const cluster of await this.records(ids)) this.indexUsers(multi, cluster);
      await multi.exec();
    } while (cursor !== '0');
    await this.redis.set(this.keys.userClustersIndexed(), '1');
  }

  /** Remembers the addresses without a user among a cluster's shares (see acceptInvitations). */
  async invite(cluster: Cluster): Promise<void> {
    for (const [email, userId] of Object.entries(cluster.shared_emails ?? {}))
      if (userId === '') await this.redis.sadd(this.keys.clusterInvitations(email), cluster.id);
  }

  /** A new user gets the clusters shared to its (normalized) e-mail address before it existed. */
  async acceptInvitations(email: string, userId: string): Promise<void> {
    const invitations = this.keys.clusterInvitations(email);
    for (const clusterId of await this.redis.smembers(invitations)) {
      const stored = await this.find(clusterId);
      if (stored?.cluster.shared_emails?.[email] !== '') continue;
      await this.update(clusterId, ({ cluster, secrets }) => ({
        cluster: {
          ...cluster,
          shared_to: [...new Set([...cluster.shared_to, userId])],
          shared_emails: { ...cluster.shared_emails, [email]: userId },
        },
        secrets,
      }));
    }
    await this.redis.del(invitations);
  }

  /** Read, change, and save if unchanged meanwhile; `change` runs again after a concurrent update. */
  async update(
    clusterId: string,
    change: (stored: StoredCluster) => { cluster: Cluster; secrets: ClusterSecrets },
  ): Promise<Cluster> {
    for (let attempt = 0; attempt < MAX_UPDATE_ATTEMPTS; attempt++) {
      const stored = await this.get(clusterId);
      const next = change(stored);
      const before = usersOf(stored.cluster);
      const after = usersOf(next.cluster);
      const losing = before.filter((userId) => !after.includes(userId));
      const gaining = after.filter((userId) => !before.includes(userId));
      const saved = await scripts.updateCluster.run(
        this.redis,
        [this.keys.cluster(clusterId), ...[...losing, ...gaining].map((userId) => this.keys.userClusters(userId))],
        [
          stored.rev,
          JSON.stringify(next.cluster),
          this.box.seal(JSON.stringify(next.secrets)),
          String(losing.length),
          clusterId,
        ],
      );
      if (saved === 1) return next.cluster;
      if (saved === -1) throw fail('cluster_not_found', clusterId);
    }
    throw fail('cluster_update_contended', clusterId);
  }

  async delete(clusterId: string): Promise<void> {
    const stored = await this.find(clusterId);
    const removals = new Removals().del(this.keys.cluster(clusterId)).srem(this.keys.clusterIndex(), clusterId);
    for (const userId of stored ? usersOf(stored.cluster) : [])
      removals.srem(this.keys.userClusters(userId), clusterId);
    await removals.run(this.redis);
  }
}

/** The users who see a cluster in their list: its owner and those it is shared to. */
function usersOf(cluster: Cluster): string[] {
  return [...new Set([cluster.user_id, ...cluster.shared_to])];
}

export type { AwsProviderSettings } from './cluster-types.js';

/** What the aws provider of a cluster is constructed from: its aws settings with the credentials decrypted. */
export function awsProviderSettingsOf(stored: StoredCluster): AwsProviderSettings | undefined {
  const { aws, docker_email } = stored.cluster.autoscale;
  const { access_key_id, secret_access_key, docker_auth } = stored.secrets;
  if (!aws || !access_key_id || !secret_access_key) return undefined;
  return { ...aws, access_key_id, secret_access_key, docker_auth, docker_email };
}
