import type { KeySpace, RedisClient } from '../core/redis.js';
import type { Authenticator } from './authenticator.js';
import type { IdentityStores } from './identity.js';
import type { LoginGuard } from './login-guard.js';
import type { ProjectLifecycle } from './project-lifecycle.js';
import { ProjectService, type ProjectServiceOptions } from './project-service.js';
import { SignIn } from './sign-in.js';
import { TokenService } from './token-service.js';
import { UserService, type InvitationHolder } from './user-service.js';

/** What the identity API's handlers call: one method per operation. */
export interface IdentityServices {
  users: UserService;
  tokens: TokenService;
  projects: ProjectService;
  signIn: SignIn;
}

export interface IdentityServiceDeps {
  redis: RedisClient;
  keys: KeySpace;
  stores: IdentityStores;
  authenticator: Authenticator;
  lifecycle: ProjectLifecycle;
  loginGuard: LoginGuard;
  /** Services keeping shares made to e-mail addresses not yet a user's (clusters). */
  invitations: InvitationHolder[];
  limits: ProjectServiceOptions & { tokensPerUser: number };
}

export function openIdentityServices(deps: IdentityServiceDeps): IdentityServices {
  const { stores, authenticator, lifecycle } = deps;
  return {
    users: new UserService(stores, authenticator, lifecycle, deps.invitations),
    tokens: new TokenService(stores, authenticator, deps.limits.tokensPerUser),
    projects: new ProjectService(stores, authenticator, lifecycle, deps.redis, deps.keys, deps.limits),
    signIn: new SignIn(stores, deps.loginGuard, authenticator),
  };
}
