import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { loadLua, type LuaScript } from '../../src/core/lua.js';
import type { RedisClient } from '../../src/core/redis.js';

/** The releases that run beside this one on the same Redis (see "Upgrading: storage feature flags" in docs/operations.md). */
export const PREVIOUS_RELEASES = ['aa884e2', 'f89fce9'] as const;

const repository = path.resolve(import.meta.dirname, '../..');
const extracted = new Map<string, string>();

/** A folder holding `folders` of the repository as they were at `commit` (read from git, once per commit). */
function releaseTree(commit: string, folders: string[]): string {
  const id = `${commit}:${folders.join(',')}`;
  const known = extracted.get(id);
  if (known) return known;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `ferrum-release-${commit}-`));
  const archive = execFileSync('git', ['archive', commit, ...folders], { cwd: repository, maxBuffer: 64 << 20 });
  execFileSync('tar', ['-x', '-C', dir], { input: archive });
  extracted.set(id, dir);
  return dir;
}

/**
 * Lua script `name` of folder `folder` as release `commit` had it (its includes resolved from
 * the same release; `folders` must hold every folder they reach), to check that what this
 * release stores is read and written correctly by an earlier one running beside it.
 */
export function releaseLua(commit: string, folder: string, name: string, folders: string[]): LuaScript {
  const dir = releaseTree(commit, folders);
  return loadLua(pathToFileURL(path.join(dir, folder) + path.sep).href, name);
}

/**
 * `script` (an earlier release's) called with this release's keys less those `leftOut` drops:
 * for a script this release gave keys it did not have (the earlier one never touches them).
 */
export function withKeysLeftOut(script: LuaScript, leftOut: (keys: string[]) => string[]): LuaScript {
  const adapted = Object.create(script) as LuaScript;
  adapted.run = (<T>(redis: RedisClient, keys: string[], args?: Parameters<LuaScript['run']>[2]) =>
    script.run<T>(redis, leftOut(keys), args)) as LuaScript['run'];
  return adapted;
}

/** take-task.lua's keys as releases before the queued task quotas took them (no payloads hash and total at the end). */
export const takeTaskKeysBefore = (keys: string[]) => keys.slice(0, -2);
/** set-task-status.lua's keys as releases before the queued task quotas took them (no payloads hash and total, 6th and 7th). */
export const setStatusKeysBefore = (keys: string[]) => [...keys.slice(0, 5), ...keys.slice(7)];
