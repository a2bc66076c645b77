import type { Quotas } from '../quotas.js';
import { type Env, MIB, nonEmpty } from './env.js';
import { defineSettings, intOf } from './setting.js';

export const AUTH_SETTINGS = defineSettings({
  FERRUM_TOKEN_CACHE_MS: {
    fallback: 5000,
    meaning:
      'how long a controller caches a token or project look-up at most (one in steady use is looked up again in the background before then); deletions and suspensions are broadcast and take effect at once',
  },
  FERRUM_LOGIN_MAX_PER_ACCOUNT: {
    fallback: 10,
    meaning:
      "dashboard sign-in attempts (`POST /1/authentication`) on one e-mail address per window before each further one is slowed down (250 ms more per attempt past it, up to `FERRUM_LOGIN_MAX_DELAY_MS`), right password or wrong, so the wait tells a guesser nothing; never refused, so the owner always gets in; a successful sign-in starts the account's count again",
  },
  FERRUM_LOGIN_MAX_PER_ADDRESS: {
    fallback: 100,
    meaning:
      'sign-in attempts from one client address per window before each further one from it is slowed down the same way; never refused',
  },
  FERRUM_LOGIN_WINDOW_MS: {
    fallback: 15 * 60_000,
    meaning: 'the sign-in counting window (counters live in Redis, shared by all controllers)',
  },
  FERRUM_LOGIN_MAX_DELAY_MS: {
    fallback: 5000,
    meaning: 'longest delay of a sign-in attempt on a much-tried account or from a much-trying client address',
  },
  FERRUM_MAX_PROJECTS_PER_USER: {
    fallback: 100,
    meaning:
      'how many projects a user may own when it creates one with a non-admin token (above: 403); projects others share with it do not count, and it may leave them (`POST /1/projects/{id}/leave`)',
  },
  FERRUM_MAX_TOKENS_PER_USER: {
    fallback: 100,
    meaning:
      'how many API tokens a user may have when it creates one with a non-admin token (above: 403; dashboard sign-ins keep only their last 5)',
  },
  FERRUM_PROJECT_JANITOR_MS: {
    fallback: 5000,
    meaning:
      'how often the leader controller cancels the running tasks of projects just suspended, queues again the tasks a suspension set aside and purges deleted projects (their queues, messages, caches, codes, tasks, logs, schedules, apps and calls, in bounded steps); `0` = never',
  },
  FERRUM_PROJECT_MAX_STORED_BYTES: {
    fallback: 256 * MIB,
    meaning:
      'quota `stored_bytes`: bytes of code archives (kept zips), cache items (keys + values), message bodies, queued task payloads and function call records and logs one project may store together (above: 413); see [Quotas](operations.md#quotas)',
  },
  FERRUM_PROJECT_MAX_QUEUE_BYTES: {
    fallback: 64 * MIB,
    meaning: 'quota `queue_bytes`: bytes of message bodies one queue may hold (above: 413)',
  },
  FERRUM_PROJECT_MAX_QUEUES: {
    fallback: 1000,
    meaning: 'quota `queues`: queues per project (above: 403)',
  },
  FERRUM_PROJECT_MAX_CACHES: {
    fallback: 1000,
    meaning: 'quota `caches`: caches holding items per project (above: 403)',
  },
  FERRUM_PROJECT_MAX_APPS: {
    fallback: 50,
    meaning: 'quota `apps`: function apps per project (above: 403)',
  },
  FERRUM_PROJECT_MAX_ROUTES: {
    fallback: 500,
    meaning: 'quota `routes`: function routes per project, over all its apps (above: 403)',
  },
  FERRUM_PROJECT_MAX_HOT_CONTAINERS: {
    fallback: 200,
    meaning:
      "quota `hot_containers`: the `max_concurrency` of a project's hot routes (`http`, `json`, `http-stream`) added up, i.e. the most hot containers it may keep on one runner (a route created or changed past it: 403)",
  },
  FERRUM_PROJECT_MAX_QUEUED_CALLS: {
    fallback: 10_000,
    meaning: 'quota `queued_calls`: async function calls of one project waiting for a runner (above: 403)',
  },
  FERRUM_PROJECT_MAX_QUEUED_TASKS: {
    // Batch users queue tens of thousands of tasks at once; stored_bytes bounds their payloads.
    fallback: 100_000,
    meaning:
      'quota `queued_tasks`: worker tasks of one project waiting for a runner, delayed ones included (above: 403)',
  },
  FERRUM_BOOTSTRAP_TOKEN: {
    shown: 'random',
    meaning:
      'admin token created on the first start (when no user exists yet). On a later start a value that is not yet a token (a rotated secret) is added as another admin token of the bootstrap user (`FERRUM_BOOTSTRAP_EMAIL`); earlier values stay valid until deleted (`DELETE /1/tokens/{id}`, named `bootstrap admin`)',
  },
  FERRUM_BOOTSTRAP_PROJECT_ID: {
    shown: 'generated',
    meaning: 'id of the first project',
  },
  FERRUM_BOOTSTRAP_EMAIL: {
    fallback: 'admin@ferrum.local',
    meaning: 'e-mail of the first admin user',
  },
  FERRUM_BOOTSTRAP_PASSWORD: {
    shown: 'random',
    meaning: 'password of the first admin user (printed once)',
  },
});

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
    tokenCacheMs: intOf(env, AUTH_SETTINGS.FERRUM_TOKEN_CACHE_MS),
    login: {
      perAccount: Math.max(1, intOf(env, AUTH_SETTINGS.FERRUM_LOGIN_MAX_PER_ACCOUNT)),
      perAddress: Math.max(1, intOf(env, AUTH_SETTINGS.FERRUM_LOGIN_MAX_PER_ADDRESS)),
      windowMs: Math.max(1000, intOf(env, AUTH_SETTINGS.FERRUM_LOGIN_WINDOW_MS)),
      maxDelayMs: Math.max(0, intOf(env, AUTH_SETTINGS.FERRUM_LOGIN_MAX_DELAY_MS)),
    },
    tenantLimits: {
      projectsPerUser: Math.max(1, intOf(env, AUTH_SETTINGS.FERRUM_MAX_PROJECTS_PER_USER)),
      tokensPerUser: Math.max(1, intOf(env, AUTH_SETTINGS.FERRUM_MAX_TOKENS_PER_USER)),
    },
    quotas: readQuotas(env),
    projectJanitorMs: intOf(env, AUTH_SETTINGS.FERRUM_PROJECT_JANITOR_MS),
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
    stored_bytes: Math.max(0, intOf(env, AUTH_SETTINGS.FERRUM_PROJECT_MAX_STORED_BYTES)),
    queue_bytes: Math.max(0, intOf(env, AUTH_SETTINGS.FERRUM_PROJECT_MAX_QUEUE_BYTES)),
    queues: Math.max(0, intOf(env, AUTH_SETTINGS.FERRUM_PROJECT_MAX_QUEUES)),
    caches: Math.max(0, intOf(env, AUTH_SETTINGS.FERRUM_PROJECT_MAX_CACHES)),
    apps: Math.max(0, intOf(env, AUTH_SETTINGS.FERRUM_PROJECT_MAX_APPS)),
    routes: Math.max(0, intOf(env, AUTH_SETTINGS.FERRUM_PROJECT_MAX_ROUTES)),
    hot_containers: Math.max(0, intOf(env, AUTH_SETTINGS.FERRUM_PROJECT_MAX_HOT_CONTAINERS)),
    queued_calls: Math.max(0, intOf(env, AUTH_SETTINGS.FERRUM_PROJECT_MAX_QUEUED_CALLS)),
    queued_tasks: Math.max(0, intOf(env, AUTH_SETTINGS.FERRUM_PROJECT_MAX_QUEUED_TASKS)),
  };
}
