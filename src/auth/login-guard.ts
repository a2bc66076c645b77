import { createHash } from 'node:crypto';
import { fail } from '../core/errors.js';
import type { KeySpace, RedisClient } from '../core/redis.js';
import { sleep } from '../core/time.js';
import { hashPassword, verifyPassword } from './password.js';

export interface LoginLimits {
  /**
   * Most sign-in attempts on one e-mail address from one client address in a window (429
   * above); past it over all client addresses, each attempt is slowed down instead.
   */
  perAccount: number;
  /** Most sign-in attempts per client address in one window. */
  perAddress: number;
  windowMs: number;
  /** Longest delay an attempt on a much-tried account waits before its answer. */
  maxDelayMs: number;
}

const digest = (value: string) => createHash('sha256').update(value).digest('hex').slice(0, 32);

/** How much each attempt past an account's limit adds to the delay. */
const DELAY_STEP_MS = 250;

/**
 * Sign-in attempts counted in Redis (so every controller shares them) per account and client
 * address, per client address, and per account, with a password check that costs the same
 * whether the account exists. A guesser is refused (429) on its own address only; an account
 * tried from many addresses answers more and more slowly but is never locked, so its owner
 * always gets in.
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

  private key(kind: 'account' | 'address' | 'pair', value: string): string {
    return this.keys.of('{login}', kind, digest(value));
  }

  private accountKeys(email: string, address: string) {
    const account = email.trim().toLowerCase();
    return { account: this.key('account', account), pair: this.key('pair', `${account}\n${address}`) };
  }

  /**
   * Counts one attempt: 429 once this address passed its limit, or its limit on this account;
   * waits a little when the account itself was tried more than its limit (from anywhere).
   */
  async attempt(email: string, address: string): Promise<void> {
    const { account, pair } = this.accountKeys(email, address);
    const counters = [
      { key: pair, limit: this.limits.perAccount },
      { key: this.key('address', address), limit: this.limits.perAddress },
      { key: account, limit: Infinity },
    ];
    const multi = this.redis.multi();
    for (const { key } of counters) multi.incr(key).pexpire(key, this.limits.windowMs, 'NX').pttl(key);
    const replies = (await multi.exec()) ?? [];
    const counts = counters.map((_, index) => Number(replies[index * 3]?.[1]));
    counters.forEach(({ limit }, index) => {
      const ttl = Number(replies[index * 3 + 2]?.[1]);
      if (counts[index]! > limit) {
        throw fail('too_many_sign_ins', Math.ceil(Math.max(ttl, 1000) / 1000));
      }
    });
    const beyond = counts[2]! - this.limits.perAccount;
    if (beyond > 0) await sleep(Math.min(this.limits.maxDelayMs, beyond * DELAY_STEP_MS));
  }

  /** After a successful sign-in the account's counters start again (the address's does not). */
  async succeeded(email: string, address: string): Promise<void> {
    const { account, pair } = this.accountKeys(email, address);
    await this.redis.del(account, pair);
  }

  /** Checks a password against the stored hash, or against a decoy when there is no account. */
  async passwordMatches(password: string, storedHash: string | undefined): Promise<boolean> {
    const matches = await verifyPassword(password, storedHash ?? (await this.decoyHash));
    return storedHash !== undefined && matches;
  }
}
