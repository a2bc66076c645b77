import { fail } from '../core/errors.js';
import type { Authenticator } from './authenticator.js';
import type { IdentityStores } from './identity.js';
import type { LoginGuard } from './login-guard.js';
import type { CreatedToken } from './tokens.js';
import type { User } from './types.js';

/** Dashboard sign-in: an e-mail address and password give the user and a session token of its own. */
export class SignIn {
  constructor(
    private readonly stores: IdentityStores,
    private readonly guard: LoginGuard,
    private readonly authenticator: Authenticator,
  ) {}

  /** The user and a fresh token (shown this once: stored tokens are hashes); 401 or 403 otherwise, never 429. */
  async signIn(email: string, password: string, address: string): Promise<{ user: User; token: CreatedToken }> {
    await this.guard.attempt(email, address);
    const user = await this.stores.users.findUserByEmail(email);
    // The password hash runs whether the account exists or not, so both answers take as long.
    if (!(await this.guard.passwordMatches(password, user?.passwordHash)) || !user) throw fail('sign_in_failed');
    if (user.status === 'suspended') throw fail('user_suspended');
    await this.guard.succeeded(email);
    const { token, revoked } = await this.stores.tokens.createSignInToken(user);
    await this.authenticator.tokensRevoked(revoked);
    return { user, token };
  }
}
