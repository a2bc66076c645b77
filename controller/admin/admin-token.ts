import { bootstrapIdentity, DEFAULT_EMAIL, type BootstrapResult } from '../../src/auth/bootstrap.js';
import { openIdentityStores, type IdentityStores } from '../../src/auth/identity.js';
import type { User } from '../../src/auth/types.js';
import type { Config } from '../../src/core/config.js';
import { FeatureStore } from '../../src/core/features/feature-store.js';
import { withAdminRedis } from './admin-redis.js';
import { ironJsonAddress, publicHostOf, writeIronJson } from './iron-json.js';
import { runningServerAddress } from './running-server.js';

/** The name of the admin tokens `ferrum admin token` makes. */
export const ADMIN_TOKEN_NAME = 'ferrum admin token';
const BOOTSTRAP_TOKEN_NAME = 'bootstrap admin';

export interface AdminToken {
  email: string;
  token: string;
  projectId: string | null;
  ironJsonPath: string | null;
  /** Set when the store had no user yet: this call bootstrapped it (the password is new too). */
  bootstrap: BootstrapResult | null;
  /** How many earlier admin tokens (made at bootstrap or by this command) were revoked. */
  revoked: number;
}

/**
 * `ferrum admin token`: a new admin token for the installation's first admin, printed and
 * written to iron.json, for when the one printed at the first start is lost (tokens are kept
 * only as digests, so none can be shown again). On a store without users it bootstraps instead.
 * Reaches REDIS_URL, or the managed Redis of FERRUM_DATA_DIR (running or started for the call).
 */
export async function issueAdminToken(config: Config, options: { revokeEarlier: boolean }): Promise<AdminToken> {
  return withAdminRedis(config, 'admin-token', async (redis, keys) => {
    // Before the bootstrap writes: the storage flags' first state (all on for a fresh store).
    await new FeatureStore(redis, keys).decide();
    const store = openIdentityStores(redis, keys);
    const bootstrap = await bootstrapIdentity(store, redis, keys, config.bootstrap);
    if (bootstrap) {
      const { email, token, projectId } = bootstrap;
      return { email, token, projectId, ironJsonPath: saveIronJson(config, token, projectId), bootstrap, revoked: 0 };
    }
    const admin = await firstAdmin(store, config.bootstrap.email ?? DEFAULT_EMAIL);
    const created = await store.tokens.createToken({
      userId: admin.id,
      name: ADMIN_TOKEN_NAME,
      type: 'standard',
      admin: true,
    });
    const revoked = options.revokeEarlier ? await revokeEarlier(store, admin, created.id) : 0;
    const projectId = (await store.projects.listProjectsOf(admin.id))[0]?.id ?? null;
    const ironJsonPath = projectId ? saveIronJson(config, created.secret, projectId) : null;
    return { email: admin.email, token: created.secret, projectId, ironJsonPath, bootstrap: null, revoked };
  });
}

/** Revokes the admin's earlier admin tokens made at bootstrap or by this command, but `kept`; how many. */
async function revokeEarlier(store: IdentityStores, admin: User, kept: string): Promise<number> {
  let revoked = 0;
  for (const token of await store.tokens.listTokens(admin.id)) {
    if (token.id === kept || !token.admin) continue;
    if (token.name !== BOOTSTRAP_TOKEN_NAME && token.name !== ADMIN_TOKEN_NAME) continue;
    await store.tokens.deleteToken(token);
    revoked++;
  }
  return revoked;
}

/** The bootstrap admin (by FERRUM_BOOTSTRAP_EMAIL), else the first active admin user. */
async function firstAdmin(store: IdentityStores, email: string): Promise<User> {
  const named = await store.users.findUserByEmail(email);
  if (named?.admin && named.status === 'active') return named;
  let previous: string | undefined;
  for (;;) {
    const page = await store.users.listUsers(previous, 100);
    const admin = page.find((user) => user.admin && user.status === 'active');
    if (admin) return admin;
    if (page.length < 100) throw new Error('this installation has no active admin user');
    previous = page[page.length - 1]!.id;
  }
}

/**
 * iron.json names the server running on the data folder, else the address it named already (the
 * last start's), else the configured one.
 */
function saveIronJson(config: Config, token: string, projectId: string): string {
  const address = runningServerAddress(config.dataDir) ??
    ironJsonAddress(config.dataDir) ?? { host: publicHostOf(config), port: config.port, protocol: config.publicScheme };
  return writeIronJson(config.dataDir, { token, project_id: projectId, ...address });
}
