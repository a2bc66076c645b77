import { LIMITS } from '../../src/mq/limits.js';

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const isStringOrAbsent = (value: unknown) => value === undefined || typeof value === 'string';

/**
 * Whether a batch delete body is one the route's schema accepts as it stands, with no null to
 * drop: `{"ids": [...]}` of 1 to 100 objects, each with a string `id` and, if any, a string
 * `reservation_id` and `subscriber_name`. The body a consumer sends after every reserve, checked
 * in one pass; anything else (null fields, the clear body `{}`, every bad input) is left to the
 * schema and its messages.
 */
export function isPlainBatchDelete(body: unknown): boolean {
  if (!isObject(body)) return false;
  const { ids } = body;
  if (!Array.isArray(ids) || ids.length < 1 || ids.length > LIMITS.maxBatchDelete) return false;
  for (const entry of ids) {
    if (!isObject(entry) || typeof entry.id !== 'string') return false;
    if (!isStringOrAbsent(entry.reservation_id) || !isStringOrAbsent(entry.subscriber_name)) return false;
  }
  return true;
}
