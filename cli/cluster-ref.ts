import type { ApiClient } from './api-client.js';
import { CliError } from './errors.js';

/** A cluster id as the API makes them (an ObjectId), or the public `default` cluster. */
const CLUSTER_ID = /^(?:[0-9a-f]{24}|default)$/;

interface ListedCluster {
  id: string;
  name?: string;
}

/**
 * The id of a cluster given by id or by name, as every `--cluster` and `<cluster>` argument
 * takes them. An id is used as is; a name is looked up among the clusters the caller sees.
 */
export async function clusterIdOf(api: ApiClient, ref: string): Promise<string> {
  if (CLUSTER_ID.test(ref)) return ref;
  const { clusters } = await api.get<{ clusters: ListedCluster[] }>('/2/clusters');
  if (clusters.some((cluster) => cluster.id === ref)) return ref;
  const named = clusters.filter((cluster) => cluster.name === ref);
  if (named.length === 1) return named[0]!.id;
  if (named.length > 1)
    throw new CliError(
      `${named.length} clusters are named "${ref}" (${named.map((c) => c.id).join(', ')}): give its id`,
    );
  throw new CliError(`Cluster ${ref} not found: no cluster you can see has that id or name (ferrum clusters list)`);
}

/** `clusterIdOf` for an optional `--cluster`. */
export async function optionalClusterIdOf(api: ApiClient, ref: string | undefined): Promise<string | undefined> {
  return ref === undefined ? undefined : clusterIdOf(api, ref);
}
