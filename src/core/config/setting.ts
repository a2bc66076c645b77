import type { Env } from './env.js';
import { fractionFrom, intFrom, oneOf } from './env.js';

/**
 * One environment variable Ferrum reads: its default and what it means. Each domain's settings
 * list (src/core/config/<domain>.ts) is where its defaults are written, once; the readers and
 * docs/configuration.md (`npm run docs:config`) both come from it.
 */
export interface SettingSpec {
  /** The value used when the variable is unset or empty. */
  readonly fallback?: number | string;
  /** How the docs show a default the code works out (from other settings, the machine); else `fallback`. */
  readonly shown?: string;
  readonly meaning: string;
}

export type Setting<S extends SettingSpec = SettingSpec> = S & { readonly name: string };

export type SettingsList<T extends Record<string, SettingSpec>> = { readonly [K in keyof T]: Setting<T[K]> };

/** A domain's settings, keyed by variable name (each gets its `name` from its key). */
export function defineSettings<const T extends Record<string, SettingSpec>>(specs: T): SettingsList<T> {
  return Object.fromEntries(
    Object.entries(specs).map(([name, spec]) => [name, { ...spec, name }]),
  ) as unknown as SettingsList<T>;
}

/** A non-negative integer setting, its default from its list. */
export function intOf(env: Env, setting: Setting<{ fallback: number; meaning: string }>): number {
  return intFrom(env, setting.name, setting.fallback);
}

/** A number in (0, 1]. */
export function fractionOf(env: Env, setting: Setting<{ fallback: number; meaning: string }>): number {
  return fractionFrom(env, setting.name, setting.fallback);
}

/** One of a setting's allowed values. */
export function choiceOf<T extends string>(env: Env, setting: { name: string; fallback: T }, allowed: readonly T[]): T {
  return oneOf(env, setting.name, allowed, setting.fallback);
}

/** A text setting: its value, or its default when unset or empty. */
export function textOf(env: Env, setting: Setting<{ fallback: string; meaning: string }>): string {
  return env[setting.name] || setting.fallback;
}
