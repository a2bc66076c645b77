import { loadLua } from '../core/lua.js';
import type { KeySpace } from '../core/redis.js';

const authScript = (name: string) => loadLua(new URL('./lua/', import.meta.url).href, name);

export const scripts = {
  createUser: authScript('create-user'),
  changeEmail: authScript('change-email'),
  markProject: authScript('mark-project'),
  setSuspensionFlag: authScript('set-suspension-flag'),
};

/** Secrets are stored only as this digest (the `secrets` index field and the token's `secret_hash`). */
export const DIGEST_PREFIX = 'sha256:';

// Users and the identity indexes share the {auth} hash tag (multi-key scripts keep e-mails
// unique). What every request looks up is spread over a Redis Cluster instead: a token's
// record by its secret's digest under a tag of its own, a project's record under the project's.
const TAG = '{auth}';

/** Key names of the identity stores. */
export class IdentityKeys {
  constructor(private readonly keys: KeySpace) {}

  /** A key under the {auth} tag: users, e-mails, token records and the indexes. */
  auth(...parts: string[]): string {
    return this.keys.of(TAG, ...parts);
  }

  /** The token whose secret has `digest`, as JSON: what authentication reads. */
  tokenByDigest(digest: string): string {
    return this.keys.of(`{t:${digest.slice(DIGEST_PREFIX.length)}}`, 'token');
  }

  /** A project's record (and its `shared` and `shared-emails` companions) under the project's own tag. */
  project(projectId: string, ...parts: string[]): string {
    return this.keys.of(`{p:${projectId}}`, 'project', ...parts);
  }
}
