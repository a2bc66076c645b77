import { newSecret } from '../core/ids.js';
import type { KeySpace, RedisClient } from '../core/redis.js';
import { sleep } from '../core/time.js';
import type { IdentityStore } from './identity-store.js';

export interface BootstrapValues {
  token?: string;
  projectId?: string;
  email?: string;
  password?: string;
}

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
  store: IdentityStore,
  redis: RedisClient,
  keys: KeySpace,
  values: BootstrapValues,
): Promise<BootstrapResult | null> {
  const lockKey = keys.of('{auth}', 'bootstrap-lock');
  while ((await redis.set(lockKey, '1', 'PX', 30_000, 'NX')) !== 'OK') await sleep(100);
  try {
    if ((await store.countUsers()) > 0) return null;
    const email = values.email ?? 'admin@ferrum.local';
    const password = values.password ?? newSecret(18);
    const user = await store.createUser({ email, password, admin: true });
    const token = await store.createToken({
      userId: user.id,
      name: 'bootstrap admin',
      type: 'standard',
      admin: true,
      secret: values.token,
    });
    const project = await store.createProject({ userId: user.id, name: 'default', id: values.projectId });
    return { email, password, token: token.secret, projectId: project.id };
  } finally {
    await redis.del(lockKey);
  }
}

/**
 * Removes what bootstrapIdentity created, for a first start that failed after it (the port in
 * use): nothing is left whose token nobody saw, and the next start bootstraps and prints again.
 */
export async function undoBootstrap(store: IdentityStore, created: BootstrapResult): Promise<void> {
  const project = await store.getProject(created.projectId);
  if (project) await store.deleteProject(project);
  const user = await store.findUserByEmail(created.email);
  if (user) await store.deleteUser(user);
}
