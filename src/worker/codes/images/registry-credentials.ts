import type { RedisClient } from '../../../core/redis.js';
import { fail } from '../../../core/errors.js';
import type { WorkerKeys } from '../../keys.js';
import type { SecretBox } from '../../../core/secret-box.js';

/** Docker registry credentials, the shape Docker's pull API takes. */
export interface RegistryAuth {
  username: string;
  password: string;
  email?: string;
  serveraddress: string;
}

export const DOCKER_HUB = 'docker.io';

/**
 * The `auth` field of the credentials request: base64 of a JSON object. Read by hand: its
 * fields exist only once decoded, after the route's schema has run.
 */
export function parseAuthField(auth: string): RegistryAuth {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(auth, 'base64').toString('utf8'));
  } catch {
    throw fail('credentials_auth_not_base64_json');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw fail('credentials_auth_not_object');
  const fields = parsed as Record<string, unknown>;
  for (const name of ['username', 'password'] as const) {
    if (fields[name] === undefined || fields[name] === '') throw fail('field_required', `auth.${name}`);
  }
  for (const name of ['username', 'password', 'email', 'serveraddress'] as const) {
    if (fields[name] !== undefined && typeof fields[name] !== 'string')
      throw fail('field_not_a_string', `auth.${name}`);
  }
  return {
    username: fields.username as string,
    password: fields.password as string,
    ...(fields.email ? { email: fields.email as string } : {}),
    serveraddress: (fields.serveraddress as string | undefined) || DOCKER_HUB,
  };
}

/** "https://index.docker.io/v1/" and "docker.io" name the same registry. */
export function normalizeRegistry(address: string): string {
  const host = address
    .replace(/^[a-z]+:\/\//i, '')
    .replace(/\/.*$/, '')
    .toLowerCase();
  return host === 'index.docker.io' || host === 'registry-1.docker.io' || host === '' ? DOCKER_HUB : host;
}

/**
 * The registry an image reference pulls from: its first component when that is a host the way
 * the engine reads it (a dot, a port, "localhost", or any capital letter), else Docker Hub.
 */
export function registryOfImage(image: string): string {
  const first = image.split('/')[0]!;
  const isHost =
    image.includes('/') &&
    (first.includes('.') || first.includes(':') || first === 'localhost' || first !== first.toLowerCase());
  return isHost ? normalizeRegistry(first) : DOCKER_HUB;
}

/** Per-project registry credentials, AES-256-GCM encrypted at rest, never returned by the API. */
export class RegistryCredentials {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: WorkerKeys,
    private readonly box: SecretBox,
  ) {}

  /** Saves the credentials a client's `auth` field (base64 of a JSON object) carries, once checked. */
  async saveAuthField(projectId: string, field: string): Promise<void> {
    await this.save(projectId, parseAuthField(field));
  }

  async save(projectId: string, auth: RegistryAuth): Promise<void> {
    await this.redis.hset(
      this.keys.registryAuth(projectId),
      normalizeRegistry(auth.serveraddress),
      this.box.seal(JSON.stringify(auth)),
    );
  }

  async forImage(projectId: string, image: string): Promise<RegistryAuth | undefined> {
    const sealed = await this.redis.hget(this.keys.registryAuth(projectId), registryOfImage(image));
    return sealed ? (JSON.parse(this.box.open(sealed)) as RegistryAuth) : undefined;
  }
}
