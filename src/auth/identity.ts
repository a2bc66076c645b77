import type { KeySpace, RedisClient } from '../core/redis.js';
import { IdentityMigrations } from './migrations.js';
import { ProjectStore } from './projects.js';
import { IdentityKeys } from './scripts.js';
import { TokenStore } from './tokens.js';
import { UserStore } from './users.js';

/** The identity service's stores, opened together over one connection. */
export interface IdentityStores {
  users: UserStore;
  tokens: TokenStore;
  projects: ProjectStore;
  /** What earlier versions wrote, moved at start. */
  migrations: IdentityMigrations;
}

export function openIdentityStores(redis: RedisClient, keySpace: KeySpace): IdentityStores {
  const keys = new IdentityKeys(keySpace);
  const tokens = new TokenStore(redis, keys);
  const users = new UserStore(redis, keys, tokens);
  const projects = new ProjectStore(redis, keys, users);
  return { users, tokens, projects, migrations: new IdentityMigrations(redis, keys, tokens, projects) };
}
