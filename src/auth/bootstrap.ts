import { AUTH_SETTINGS } from '../core/config/auth.js';
import { HttpError } from '../core/errors.js';
import { newSecret } from '../core/ids.js';
import type { KeySpace, RedisClient } from '../core/redis.js';
import { sleep } from '../core/time.js';
import type { IdentityStores } from './identity.js';

export interface BootstrapValues {
  token?: string;
  projectId?: string;
  email?: string;
  password?: string;
}

const BOOTSTRAP_TOKEN_NAME = 'bootstrap admin';
export const DEFAULT_EMAIL = AUTH_SETTINGS.FERRUM_BOOTSTRAP_EMAIL.fallback;

export interface BootstrapResult {
  email: string;
  password: string;
  token: string;
  projectId: string;
}

/**
 * On a fresh store (no user yet) creates an admin user, an admin token and a first project.
 * Returns what it created, or null when users already exist. Safe when several controllers
 * start at once: one takes a lock, the others wait for it and create nothing.
 */
export async function bootstrapIdentity(
  store: IdentityStores,
  redis: RedisClient,
  keys: KeySpace,
  values: BootstrapValues,
): Promise<BootstrapResult | null> {
  const lockKey = keys.of('{auth}', 'bootstrap-lock');
  while ((await redis.set(lockKey, '1', 'PX', 30_000, 'NX')) !== 'OK') await sleep(100);
  try {
    if ((await store.users.countUsers()) > 0) return null;
    const email = values.email ?? DEFAULT_EMAIL;
    const password = values.password ?? newSecret(18);
    const user = await store.users.createUser({ email, password, admin: true });
    const token = await store.tokens.createToken({
      userId: user.id,
      name: BOOTSTRAP_TOKEN_NAME,
      type: 'standard',
      admin: true,
      secret: values.token,
    });
    const project = await store.projects.createProject({ userId: user.id, name: 'default', id: values.projectId });
    return { email, password, token: token.secret, projectId: project.id };
  } finally {
    await redis.del(lockKey);
  }
}

/** What a start did with FERRUM_BOOTSTRAP_TOKEN on a store that already had users. */
export type ReappliedToken = 'unset' | 'present' | 'added' | 'no-admin-user';

/**
 * Makes the configured bootstrap token work on a store that already has users (a changed
 * FERRUM_BOOTSTRAP_TOKEN, e.g. a rotated Kubernetes Secret): when no token has that value, it is
 * added as another admin token of the bootstrap user (FERRUM_BOOTSTRAP_EMAIL). Earlier values
 * stay valid until deleted (DELETE /1/tokens/{id}): a controller started with an older value
 * during a rollout must not revoke the newer one.
 */
export async function reapplyBootstrapToken(store: IdentityStores, values: BootstrapValues): Promise<ReappliedToken> {
  if (!values.token) return 'unset';
  if (await store.tokens.findTokenBySecret(values.token)) return 'present';
  const user = await store.users.findUserByEmail(values.email ?? DEFAULT_EMAIL);
  if (!user?.admin) return 'no-admin-user';
  try {
    await store.tokens.createToken({
      userId: user.id,
      name: BOOTSTRAP_TOKEN_NAME,
      type: 'standard',
      admin: true,
      secret: values.token,
    });
    return 'added';
  } catch (error) {
    // Another controller starting at the same time added it first.
    if (error instanceof HttpError && error.code === 'token_value_taken') return 'present';
    throw error;
  }
}

/**
 * Removes what bootstrapIdentity created, for a first start that failed after it (the port in
 * use): nothing is left whose token nobody saw, and the next start bootstraps and prints again.
 */
export async function undoBootstrap(store: IdentityStores, created: BootstrapResult): Promise<void> {
  const project = await store.projects.getProject(created.projectId);
  if (project) await store.projects.deleteProject(project);
  const user = await store.users.findUserByEmail(created.email);
  if (user) await store.users.deleteUser(user);
}
