import type { Endpoints } from '../client/endpoints.js';
import { CliError } from './errors.js';

/** A cluster id as the API makes them (an ObjectId), or the public `default` cluster. */
const CLUSTER_ID = /^(?:[0-9a-f]{24}|default)$/;

/**
 * The id of a cluster given by id or by name, as every `--cluster` and `<cluster>` argument
 * takes them. An id is used as is; a name is looked up among the clusters the caller sees.
 */
export async function clusterIdOf(client: Endpoints, ref: string): Promise<string> {
  if (CLUSTER_ID.test(ref)) return ref;
  const { clusters = [] } = await client.clusters.list();
  if (clusters.some((cluster) => cluster.id === ref)) return ref;
  const named = clusters.filter((cluster) => cluster.name === ref);
  if (named.length === 1 && named[0]!.id) return named[0]!.id;
  if (named.length > 1)
    throw new CliError(
      `${named.length} clusters are named "${ref}" (${named.map((c) => c.id).join(', ')}): give its id`,
    );
  throw new CliError(`Cluster ${ref} not found: no cluster you can see has that id or name (ferrum clusters list)`);
}

/** `clusterIdOf` for an optional `--cluster`. */
export async function optionalClusterIdOf(client: Endpoints, ref: string | undefined): Promise<string | undefined> {
  return ref === undefined ? undefined : clusterIdOf(client, ref);
}
