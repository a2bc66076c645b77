import { parseJsonText } from '../../src/core/json-text.js';

/** A JSON request body as a value, and whether it was empty (and so reads as {}). */
export interface JsonBody {
  value: unknown;
  empty: boolean;
}

/**
 * A JSON body's text as a value: an empty body counts as {} (existing clients send
 * Content-Type: application/json with no body on DELETE and GET), and so does `[]` where the
 * route takes an object (`takesObject`): the PHP clients send json_encode(array()), `[]`, on PUT,
 * PATCH, POST and DELETE without parameters. Unparsable JSON is a 400 that says so
 * (`parseJsonText`). The same on the main thread and in the parse pool's threads. `takesObject`
 * may be a function, asked only for a `[]` body (the route's options cost a look-up per request).
 */
export function parseJsonBody(text: string, takesObject: boolean | (() => boolean)): JsonBody {
  const trimmed = text.trim();
  if (trimmed === '') return { value: {}, empty: true };
  // Given on purpose, unlike an empty body: a clear with `[]` is PHP's clear with {}.
  if (trimmed === '[]' && (typeof takesObject === 'function' ? takesObject() : takesObject))
    return { value: {}, empty: false };
  return { value: parseJsonText(trimmed), empty: false };
}
