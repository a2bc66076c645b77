import type { RedisClient } from '../../../core/redis.js';
import { createHash } from 'node:crypto';
import { newSecret } from '../../../core/ids.js';
import type { WorkerKeys } from '../../keys.js';
import { FINAL_STATUSES, type TaskStatus } from '../../types.js';

/** Marks task tokens, so that other tokens never cost a lookup here. */
export const TASK_TOKEN_PREFIX = 'task_';

/** What a task token grants: its own task, nothing else. */
export interface TaskGrant {
  project_id: string;
  task_id: string;
}

function digestOf(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** Tokens a runner gives each container, valid only for its own task while it runs. Stored hashed. */
export class TaskTokens {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: WorkerKeys,
  ) {}

  async issue(grant: TaskGrant, ttlMs: number): Promise<string> {
    const token = `${TASK_TOKEN_PREFIX}${newSecret()}`;
    await this.redis.set(this.keys.taskToken(digestOf(token)), JSON.stringify(grant), 'PX', ttlMs);
    return token;
  }

  /** The grant of a token whose task has not ended: a finished or cancelled task's token is dead at once. */
  async find(token: string): Promise<TaskGrant | null> {
    if (!token.startsWith(TASK_TOKEN_PREFIX)) return null;
    const json = await this.redis.get(this.keys.taskToken(digestOf(token)));
    if (!json) return null;
    const grant = JSON.parse(json) as TaskGrant;
    const status = await this.redis.hget(this.keys.task(grant.project_id, grant.task_id), 'status');
    return status && !FINAL_STATUSES.includes(status as TaskStatus) ? grant : null;
  }

  async revoke(token: string): Promise<void> {
    await this.redis.del(this.keys.taskToken(digestOf(token)));
  }
}
