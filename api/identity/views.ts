import type { Project, Token, User } from '../../src/auth/types.js';
import type { Quotas } from '../../src/auth/quotas.js';
import { toRfc3339 } from '../../src/core/time.js';

/**
 * Wire shapes of identity records. A password hash never leaves this module; a token's
 * secret appears only in the answer that created it.
 */

export function userView(user: User, tokenSecrets: string[] = []) {
  return {
    id: user.id,
    user_id: user.id,
    email: user.email,
    tokens: tokenSecrets,
    status: user.status,
    plan_worker: user.planWorker,
    flags: user.flags,
    admin: user.admin,
    created_at: toRfc3339(user.createdAt),
    updated_at: toRfc3339(user.updatedAt),
  };
}

export function tokenView(token: Token & { secret?: string }) {
  return {
    _id: token.id,
    id: token.id,
    user_id: token.userId,
    type: token.type,
    name: token.name,
    token: token.secret,
    token_hint: token.hint,
    admin: token.admin,
    created_at: toRfc3339(token.createdAt),
  };
}

export interface ProjectCounters {
  total_duration: number;
  schedules_count: number;
  task_count: number;
  hourly_task_count: number;
  hourly_time: number | null;
}

/** Users shared with by id, and the addresses shared with by e-mail (known to belong to someone or not). */
function sharedWithView(project: Project): string[] {
  const byEmail = new Set(Object.values(project.sharedEmails));
  return [...project.sharedWith.filter((id) => !byEmail.has(id)), ...Object.keys(project.sharedEmails)].sort();
}

export function projectView(project: Project, counters: ProjectCounters, quotas: Quotas) {
  return {
    id: project.id,
    user_id: project.userId,
    name: project.name,
    type: project.type,
    partner: project.partner,
    status: project.status,
    total_duration: counters.total_duration,
    max_schedules: project.maxSchedules,
    quotas,
    schedules_count: counters.schedules_count,
    task_count: counters.task_count,
    hourly_task_count: counters.hourly_task_count,
    hourly_time: toRfc3339(counters.hourly_time) ?? null,
    flags: project.flags,
    shared_with: sharedWithView(project),
    created_at: toRfc3339(project.createdAt),
    updated_at: toRfc3339(project.updatedAt),
  };
}

const nullableString = { type: ['string', 'null'] } as const;

export const userSchema = {
  type: 'object',
  required: ['id', 'user_id', 'email', 'tokens', 'status', 'admin', 'created_at', 'updated_at'],
  properties: {
    id: { type: 'string' },
    user_id: { type: 'string' },
    email: { type: 'string' },
    tokens: { type: 'array', items: { type: 'string' } },
    status: { type: 'string' },
    plan_worker: { type: 'string' },
    flags: { type: 'object', additionalProperties: true },
    admin: { type: 'boolean' },
    created_at: { type: 'string' },
    updated_at: { type: 'string' },
  },
} as const;

export const tokenSchema = {
  type: 'object',
  required: ['_id', 'id', 'user_id', 'type', 'name', 'token_hint', 'admin', 'created_at'],
  properties: {
    _id: { type: 'string' },
    id: { type: 'string' },
    user_id: { type: 'string' },
    type: { type: 'string' },
    name: { type: 'string' },
    token: { type: 'string' },
    token_hint: { type: 'string' },
    admin: { type: 'boolean' },
    created_at: { type: 'string' },
  },
} as const;

export const projectSchema = {
  type: 'object',
  required: ['id', 'user_id', 'name', 'type', 'status', 'created_at', 'updated_at'],
  properties: {
    id: { type: 'string' },
    user_id: { type: 'string' },
    name: { type: 'string' },
    type: { type: 'string' },
    partner: nullableString,
    status: { type: 'string' },
    total_duration: { type: 'number' },
    max_schedules: { type: 'number' },
    quotas: { type: 'object', additionalProperties: { type: 'number' } },
    schedules_count: { type: 'number' },
    task_count: { type: 'number' },
    hourly_task_count: { type: 'number' },
    hourly_time: nullableString,
    flags: { type: 'object', additionalProperties: { type: 'boolean' } },
    shared_with: { type: 'array', items: { type: 'string' } },
    created_at: { type: 'string' },
    updated_at: { type: 'string' },
  },
} as const;

export const msgSchema = {
  type: 'object',
  properties: { msg: { type: 'string' } },
} as const;
