/** Deepest nesting of arrays and objects a JSON body may have; deeper is a 400 (serializers recurse). */
export const MAX_JSON_DEPTH = 64;

/** Whether `text` nests arrays/objects deeper than `max` (brackets inside strings do not count). */
export function nestsDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}

/**
 * Whether a parsed JSON value nests arrays/objects deeper than `max`: for valid JSON the same
 * answer as `nestsDeeperThan` on its text, but it visits values rather than every character
 * (a body of 100 short objects: ~200 steps instead of ~9,000).
 */
export function valueNestsDeeperThan(value: unknown, max: number): boolean {
  if (typeof value !== 'object' || value === null) return false;
  if (max <= 0) return true;
  if (Array.isArray(value)) {
    for (const item of value) if (valueNestsDeeperThan(item, max - 1)) return true;
    return false;
  }
  for (const key in value) if (valueNestsDeeperThan((value as Record<string, unknown>)[key], max - 1)) return true;
  return false;
}
