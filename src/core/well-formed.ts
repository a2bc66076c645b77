import { fail } from './errors.js';

/** A lone surrogate: with the `u` flag a well-formed pair reads as one code point, not two. */
const LONE_SURROGATE = /\p{Cs}/u;

export const isWellFormed = (text: string): boolean => !LONE_SURROGATE.test(text);

/**
 * Where in `value` a string, or an object's key, is not well-formed Unicode (a lone surrogate,
 * which only a `\ud800`-style escape can make): `body.subscribers[0].url`, or undefined. Such a
 * name cannot be written as UTF-8 (Redis keys, URLs: encodeURIComponent throws on it).
 */
export function illFormedPath(value: unknown, path: string): string | undefined {
  if (typeof value === 'string') return isWellFormed(value) ? undefined : path;
  if (typeof value !== 'object' || value === null) return undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = illFormedPath(value[i], `${path}[${i}]`);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  for (const [key, each] of Object.entries(value)) {
    if (!isWellFormed(key)) return `${path} key`;
    const found = illFormedPath(each, `${path}.${key}`);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** A surrogate's escape (`\ud800` to `\udfff`): the only way JSON text makes a lone one. */
const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/;

/**
 * Refuses (400 naming the first one) a string or key of `value`, parsed from the JSON `text`,
 * that is not well-formed Unicode; `root` names the value in the message (`body`, `data`).
 */
export function refuseLoneSurrogates(text: string, value: unknown, root: string): void {
  if (!SURROGATE_ESCAPE.test(text)) return;
  const where = illFormedPath(value, root);
  if (where !== undefined) throw fail('ill_formed_unicode', where);
}
