import type { RedisClient } from './redis.js';
import { newSecret } from './ids.js';

const RENEW_SCRIPT = `
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0`;

const RELEASE_SCRIPT = `
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0`;

/**
 * A leader lease: exactly one holder of `key` at a time across all controllers.
 * Holders renew every ttl/3; a holder that dies loses the lease after ttl.
 */
export class Lease {
  private readonly owner = newSecret(12);
  private held = false;

  constructor(
    private readonly redis: RedisClient,
    private readonly key: string,
    private readonly ttlMs: number,
  ) {}

  get isHeld(): boolean {
    return this.held;
  }

  /** Takes the lease if free, renews it if ours. Returns whether we hold it now. */
  async tryAcquire(): Promise<boolean> {
    if (this.held) {
      this.held = (await this.redis.eval(RENEW_SCRIPT, 1, this.key, this.owner, this.ttlMs)) === 1;
    }
    if (!this.held) {
      this.held = (await this.redis.set(this.key, this.owner, 'PX', this.ttlMs, 'NX')) === 'OK';
    }
    return this.held;
  }

  async release(): Promise<void> {
    if (!this.held) return;
    this.held = false;
    await this.redis.eval(RELEASE_SCRIPT, 1, this.key, this.owner);
  }
}
