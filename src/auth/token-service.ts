import { fail } from '../core/errors.js';
import { access } from './access.js';
import type { Authenticator } from './authenticator.js';
import type { IdentityStores } from './identity.js';
import type { CreatedToken } from './tokens.js';
import type { Principal, Token, TokenType, User } from './types.js';

export interface NewTokenRequest {
  name?: string;
  type?: TokenType;
  admin?: boolean;
  /** Whose token (admins only for another user): a user id or e-mail address; the caller's by default. */
  userId?: string;
}

/** The identity API's token operations, each one call: who may do it, the per-user cap, the store change. */
export class TokenService {
  constructor(
    private readonly stores: IdentityStores,
    private readonly authenticator: Authenticator,
    /** How many tokens a user may have through non-admin requests. */
    private readonly tokensPerUser: number,
  ) {}

  async create(principal: Principal, request: NewTokenRequest): Promise<CreatedToken> {
    const owner = await this.owner(request.userId ?? principal.userId);
    if (!access.seeUser(principal, owner)) throw fail('tokens_for_others_admin_only');
    if (request.admin && !principal.admin) throw fail('admin_tokens_admin_only');
    const cap = this.tokensPerUser;
    if (!principal.admin && (await this.stores.tokens.countTokens(owner.id)) >= cap)
      throw fail('tokens_per_user_reached', cap);
    return this.stores.tokens.createToken({
      userId: owner.id,
      name: request.name ?? '',
      type: request.type ?? 'standard',
      admin: request.admin ?? false,
    });
  }

  /** A user's tokens (secrets never shown again: their hints only). */
  async list(principal: Principal, userId: string = principal.userId): Promise<Token[]> {
    const owner = await this.owner(userId);
    if (!access.seeUser(principal, owner)) throw fail('list_others_tokens_admin_only');
    return this.stores.tokens.listTokens(owner.id);
  }

  /** Deletes a token; it stops working on every controller at once. */
  async delete(principal: Principal, tokenId: string): Promise<void> {
    const token = await this.stores.tokens.getToken(tokenId);
    if (!token) throw fail('token_not_found');
    if (!principal.admin && token.userId !== principal.userId) throw fail('token_of_another_user');
    await this.stores.tokens.deleteToken(token);
    await this.authenticator.tokensRevoked([token.secretHash]);
  }

  private async owner(idOrEmail: string): Promise<User> {
    const owner = await this.stores.users.findUser(idOrEmail);
    if (!owner) throw fail('user_not_found');
    return owner;
  }
}
