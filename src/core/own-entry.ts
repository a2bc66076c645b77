/**
 * `table[key]` when `key` is the table's own (a name a tenant gives: `constructor`, `toString`
 * or `__proto__` would otherwise find Object.prototype's members).
 */
export function ownEntry<T>(table: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(table, key) ? table[key] : undefined;
}
