import { row } from './row.js';

/** The error table's cache rows: cache items and caches. */
export const CACHE_ERRORS = {
  cache_name_reserved: row(400, 'cache name must not be empty, "." or ".."'),
  cache_name_too_long: row(400, (max: number) => `cache name must be at most ${max} bytes`),
  cache_name_unsafe: row(400, 'cache name must not contain "/" or control characters'),
  cache_not_found: row(404, 'Cache not found'),
  item_key_missing_in_path: row(400, 'key must not be empty: items are addressed as /items/{key}'),
  item_key_too_long: row(400, (max: number) => `key must be at most ${max} bytes`),
  item_value_null: row(400, 'value must not be null'),
  item_value_too_large: row(413, (bytes: number, max: number) => `value is ${bytes} bytes; the limit is ${max} bytes`),
  // The hosted service's texts, which the official clients' examples print.
  item_not_found: row(404, "The resource, project, or endpoint being requested doesn't exist."),
  put_add_and_replace: row(400, 'add and replace cannot both be true'),
  put_cas_with_add: row(400, 'cas cannot be combined with add: cas needs an existing item'),
  put_cas_invalid: row(400, 'cas must be a positive integer, as returned by a get'),
  put_cas_item_missing: row(404, 'Item not found: cas stores only keys that are in the cache'),
  put_cas_mismatch: row(409, 'cas mismatch: the item has changed since that cas was read'),
  increment_amount_invalid: row(
    400,
    `amount must be an integer between ${Number.MIN_SAFE_INTEGER} and ${Number.MAX_SAFE_INTEGER}`,
  ),
  increment_not_numeric: row(400, 'Cannot increment or decrement non-numeric value'),
  increment_not_integer: row(400, 'Cannot increment: the value is not an integer'),
  increment_out_of_range: row(400, 'Cannot increment: the value is not an integer in the 64-bit signed range'),
  increment_overflow: row(400, 'Cannot increment: the result would overflow the 64-bit signed integer range'),
} as const;
