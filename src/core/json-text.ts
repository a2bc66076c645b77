import secureJson from 'secure-json-parse';
import { fail } from './errors.js';
import { MAX_JSON_DEPTH, nestsDeeperThan, valueNestsDeeperThan } from './json-depth.js';
import { refuseLoneSurrogates } from './well-formed.js';

const SECURE_OPTIONS = { protoAction: 'remove', constructorAction: 'remove' } as const;

/**
 * Whether `text` could hold a `__proto__` or `constructor` key: written plainly, or with \u
 * escapes (secure-json-parse's patterns allow both). Three native substring searches, where
 * secure-json-parse's two patterns are tried at every quote of the text.
 */
function mayHoldPrototypeKeys(text: string): boolean {
  return text.includes('__proto__') || text.includes('constructor') || text.includes('\\u');
}

/**
 * A request's JSON text (non-empty, trimmed: the body, or a form field holding JSON, named by
 * `part` in refusals) as a value, with secure-json-parse's
 * protection (`__proto__` keys, and `constructor` keys holding a `prototype`, removed).
 * Too deep (MAX_JSON_DEPTH) is a 400 saying so, judged first, as before parsing; unparsable
 * JSON a 400 with the parser's message. Parsed first and the depth checked on the value, which
 * is cheaper than scanning every character (V8's JSON.parse does not recurse, so a deep text
 * cannot overflow it); the text is scanned only when it does not parse.
 */
export function parseJsonText(text: string, part = 'body'): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    if (nestsDeeperThan(text, MAX_JSON_DEPTH)) throw fail('invalid_json_too_deep', part, MAX_JSON_DEPTH);
    throw fail('invalid_json', part, (error as Error).message);
  }
  if (valueNestsDeeperThan(value, MAX_JSON_DEPTH)) throw fail('invalid_json_too_deep', part, MAX_JSON_DEPTH);
  // Every name that reaches Redis or a URL comes from a body, a path or a query; paths and
  // queries are percent-decoded as UTF-8, which cannot make a lone surrogate.
  refuseLoneSurrogates(text, value, part);
  if (typeof value !== 'object' || value === null || !mayHoldPrototypeKeys(text)) return value;
  return secureJson.scan(value, SECURE_OPTIONS);
}
