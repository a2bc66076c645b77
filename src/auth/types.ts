import type { Quotas } from './quotas.js';

/** Token types: tokens of the earlier API generation are refused by the version 3 APIs. */
export const TOKEN_TYPES = ['standard', 'v2'] as const;
export type TokenType = (typeof TOKEN_TYPES)[number];
export const LEGACY_TOKEN_TYPE: TokenType = 'v2';

export const PROJECT_STATUSES = ['active', 'suspended'] as const;
export type ProjectStatus = (typeof PROJECT_STATUSES)[number];

export const USER_STATUSES = ['active', 'suspended'] as const;
export type UserStatus = (typeof USER_STATUSES)[number];

export interface User {
  id: string;
  email: string;
  passwordHash: string;
  status: UserStatus;
  admin: boolean;
  planWorker: string;
  flags: Record<string, unknown>;
  createdAt: number;
  updatedAt: number;
}

export interface Token {
  id: string;
  /** The secret's digest (see tokenDigest); the secret itself is never stored. */
  secretHash: string;
  /** The secret's first characters, shown in lists. */
  hint: string;
  userId: string;
  type: TokenType;
  name: string;
  admin: boolean;
  createdAt: number;
}

export interface Project {
  id: string;
  userId: string;
  name: string;
  type: string;
  partner: string | null;
  status: ProjectStatus;
  maxSchedules: number;
  /** Quotas an admin set for this project; the others are the operator's defaults. */
  quotas: Partial<Quotas>;
  flags: Record<string, boolean>;
  sharedWith: string[];
  /**
   * Shares made by e-mail address: address → the user's id, or '' while no user has it (the
   * user gets the share when created). Shown as the addresses, so no answer tells whether one exists.
   */
  sharedEmails: Record<string, string>;
  createdAt: number;
  updatedAt: number;
}

/** Who is calling: the identity behind a presented token. */
export interface Principal {
  tokenId: string;
  userId: string;
  admin: boolean;
  type: TokenType;
  /** Set for a running task's own token: it may use only this project, and no identity administration. */
  task?: TaskScope;
}

export interface TaskScope {
  projectId: string;
  taskId: string;
}

/** Finds the grant of a task token (the worker service issues them); null for any other token. */
export interface TaskTokenLookup {
  find(token: string): Promise<{ project_id: string; task_id: string } | null>;
}
