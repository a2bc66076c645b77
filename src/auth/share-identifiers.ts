import { fail } from '../core/errors.js';

/**
 * The user identifiers of a share/unshare body. Accepted forms: ["id", …], [{"user_id": …}, …],
 * {"user_ids": [...]}, {"user_id": "…"}, {"users": [...]}; e-mail addresses work as identifiers.
 * Read by hand: a schema's anyOf over five forms would refuse a bad one without naming a field.
 */
export function shareIdentifiers(body: unknown): string[] {
  const list = identifierList(body);
  if (list === undefined) throw fail('share_list_missing');
  if (!Array.isArray(list)) throw fail('field_not_a_list', 'user_ids');
  if (list.length === 0) throw fail('share_list_missing');
  return list.map((item: unknown) => {
    const id: unknown = typeof item === 'object' && item !== null ? Reflect.get(item, 'user_id') : item;
    if (typeof id !== 'string' || id === '') throw fail('share_id_not_string');
    return id;
  });
}

/** The list a share/unshare body gives, whichever of its forms it takes (undefined: none). */
function identifierList(body: unknown): unknown {
  if (Array.isArray(body)) return body;
  if (typeof body !== 'object' || body === null) return undefined;
  const field = (name: string): unknown => Reflect.get(body, name);
  return field('user_ids') ?? field('users') ?? (field('user_id') !== undefined ? [field('user_id')] : undefined);
}
