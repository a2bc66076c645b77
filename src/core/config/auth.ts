import type { Quotas } from '../quotas.js';
import { type Env, intFrom, MIB, nonEmpty } from './env.js';

/** Identity: tokens, sign-in limits, what tenants may have, and the first start's admin. */
export interface AuthSettings {
  tokenCacheMs: number;
  /** Dashboard sign-in limits (POST /1/authentication), counted in Redis. */
  login: { perAccount: number; perAddress: number; windowMs: number; maxDelayMs: number };
  /** How many projects and API tokens a user may have through non-admin requests. */
  tenantLimits: { projectsPerUser: number; tokensPerUser: number };
  /** Each project's quotas unless an admin set its own (see src/auth/quotas.ts). */
  quotas: Quotas;
  /** How often the leader queues again the tasks of projects whose suspension ended and purges deleted projects (0 = never). */
  projectJanitorMs: number;
  bootstrap: {
    token: string | undefined;
    projectId: string | undefined;
    email: string | undefined;
    password: string | undefined;
  };
}

export function readAuthSettings(env: Env): AuthSettings {
  return {
    tokenCacheMs: intFrom(env, 'FERRUM_TOKEN_CACHE_MS', 5000),
    login: {
      perAccount: Math.max(1, intFrom(env, 'FERRUM_LOGIN_MAX_PER_ACCOUNT', 10)),
      perAddress: Math.max(1, intFrom(env, 'FERRUM_LOGIN_MAX_PER_ADDRESS', 100)),
      windowMs: Math.max(1000, intFrom(env, 'FERRUM_LOGIN_WINDOW_MS', 15 * 60_000)),
      maxDelayMs: Math.max(0, intFrom(env, 'FERRUM_LOGIN_MAX_DELAY_MS', 5000)),
    },
    tenantLimits: {
      projectsPerUser: Math.max(1, intFrom(env, 'FERRUM_MAX_PROJECTS_PER_USER', 100)),
      tokensPerUser: Math.max(1, intFrom(env, 'FERRUM_MAX_TOKENS_PER_USER', 100)),
    },
    quotas: readQuotas(env),
    projectJanitorMs: intFrom(env, 'FERRUM_PROJECT_JANITOR_MS', 5000),
    bootstrap: {
      token: nonEmpty(env.FERRUM_BOOTSTRAP_TOKEN),
      projectId: nonEmpty(env.FERRUM_BOOTSTRAP_PROJECT_ID),
      email: nonEmpty(env.FERRUM_BOOTSTRAP_EMAIL),
      password: nonEmpty(env.FERRUM_BOOTSTRAP_PASSWORD),
    },
  };
}

/** The operator's default quotas of every project (FERRUM_PROJECT_MAX_*). */
function readQuotas(env: Env): Quotas {
  return {
    stored_bytes: Math.max(0, intFrom(env, 'FERRUM_PROJECT_MAX_STORED_BYTES', 256 * MIB)),
    queue_bytes: Math.max(0, intFrom(env, 'FERRUM_PROJECT_MAX_QUEUE_BYTES', 64 * MIB)),
    queues: Math.max(0, intFrom(env, 'FERRUM_PROJECT_MAX_QUEUES', 1000)),
    caches: Math.max(0, intFrom(env, 'FERRUM_PROJECT_MAX_CACHES', 1000)),
    apps: Math.max(0, intFrom(env, 'FERRUM_PROJECT_MAX_APPS', 50)),
    routes: Math.max(0, intFrom(env, 'FERRUM_PROJECT_MAX_ROUTES', 500)),
    hot_containers: Math.max(0, intFrom(env, 'FERRUM_PROJECT_MAX_HOT_CONTAINERS', 200)),
    queued_calls: Math.max(0, intFrom(env, 'FERRUM_PROJECT_MAX_QUEUED_CALLS', 10_000)),
    queued_tasks: Math.max(0, intFrom(env, 'FERRUM_PROJECT_MAX_QUEUED_TASKS', 10_000)),
  };
}
