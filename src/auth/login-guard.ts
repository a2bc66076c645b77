import { createHash } from 'node:crypto';
import { tooManyRequests } from '../core/errors.js';
import type { KeySpace, RedisClient } from '../core/redis.js';
import { hashPassword, verifyPassword } from './password.js';

export interface LoginLimits {
  /** Most sign-in attempts per e-mail address in one window. */
  perAccount: number;
  /** Most sign-in attempts per client address in one window. */
  perAddress: number;
  windowMs: number;
}

const digest = (value: string) => createHash('sha256').update(value).digest('hex').slice(0, 32);

/**
 * Sign-in attempts counted in Redis (so every controller shares them) per account and per
 * client address, and a password check that costs the same whether the account exists.
 */
export class LoginGuard {
  private readonly decoyHash: Promise<string>;

  constructor(
    private readonly redis: RedisClient,
    private readonly keys: KeySpace,
    private readonly limits: LoginLimits,
  ) {
    // Checked against when the e-mail is unknown, so that both answers take one scrypt run.
    this.decoyHash = hashPassword(digest(String(Math.random())));
  }

  private key(kind: 'account' | 'address', value: string): string {
    return this.keys.of('{login}', kind, digest(value));
  }

  /** Counts one attempt; 429 once either counter is over its limit in the current window. */
  async attempt(email: string, address: string): Promise<void> {
    const counters = [
      { key: this.key('account', email.trim().toLowerCase()), limit: this.limits.perAccount },
      { key: this.key('address', address), limit: this.limits.perAddress },
    ];
    const multi = this.redis.multi();
    for (const { key } of counters) multi.incr(key).pexpire(key, this.limits.windowMs, 'NX').pttl(key);
    const replies = (await multi.exec()) ?? [];
    counters.forEach(({ limit }, index) => {
      const count = Number(replies[index * 3]?.[1]);
      const ttl = Number(replies[index * 3 + 2]?.[1]);
      if (count > limit) {
        throw tooManyRequests(`Too many sign-in attempts; try again in ${Math.ceil(Math.max(ttl, 1000) / 1000)} s`);
      }
    });
  }

  /** After a successful sign-in the account's counter starts again (the address's does not). */
  async succeeded(email: string): Promise<void> {
    await this.redis.del(this.key('account', email.trim().toLowerCase()));
  }

  /** Checks a password against the stored hash, or against a decoy when there is no account. */
  async passwordMatches(password: string, storedHash: string | undefined): Promise<boolean> {
    const matches = await verifyPassword(password, storedHash ?? (await this.decoyHash));
    return storedHash !== undefined && matches;
  }
}
