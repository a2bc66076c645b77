import { createHash } from 'node:crypto';
import type { KeySpace, RedisClient } from '../core/redis.js';
import { sleep } from '../core/time.js';
import { hashPassword, verifyPassword } from './password.js';

export interface LoginLimits {
  /** Sign-in attempts on one e-mail address in a window before each further one is slowed down. */
  perAccount: number;
  /** Sign-in attempts from one client address in a window before each further one is slowed down. */
  perAddress: number;
  windowMs: number;
  /** Longest delay an attempt on a much-tried account, or from a much-trying address, waits. */
  maxDelayMs: number;
}

const digest = (value: string) => createHash('sha256').update(value).digest('hex').slice(0, 32);

/** How much each attempt past a limit adds to the delay. */
const DELAY_STEP_MS = 250;

/**
 * Sign-in attempts counted in Redis (so every controller shares them) per account and per
 * client address, with a password check that costs the same whether the account exists. Nothing
 * is ever refused: an account or an address tried past its limit answers every attempt, right
 * password or wrong, more and more slowly (up to `maxDelayMs`), so a guesser gets a bounded
 * number of answers per second while the owner, even behind the guesser's NAT or proxy, gets in.
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

  private accountKey(email: string): string {
    return this.key('account', email.trim().toLowerCase());
  }

  /**
   * Counts one attempt and waits as long as the account's or the address's count past its limit
   * says, before the password is checked: the delay cannot tell a right password from a wrong one.
   */
  async attempt(email: string, address: string): Promise<void> {
    const counters = [
      { key: this.accountKey(email), limit: this.limits.perAccount },
      { key: this.key('address', address), limit: this.limits.perAddress },
    ];
    const multi = this.redis.multi();
    for (const { key } of counters) multi.incr(key).pexpire(key, this.limits.windowMs, 'NX');
    const replies = (await multi.exec()) ?? [];
    const beyond = Math.max(0, ...counters.map(({ limit }, index) => Number(replies[index * 2]?.[1]) - limit));
    if (beyond > 0) await sleep(Math.min(this.limits.maxDelayMs, beyond * DELAY_STEP_MS));
  }

  /** After a successful sign-in the account's count starts again (the address's does not). */
  async succeeded(email: string): Promise<void> {
    await this.redis.del(this.accountKey(email));
  }

  /** Checks a password against the stored hash, or against a decoy when there is no account. */
  async passwordMatches(password: string, storedHash: string | undefined): Promise<boolean> {
    const matches = await verifyPassword(password, storedHash ?? (await this.decoyHash));
    return storedHash !== undefined && matches;
  }
}
