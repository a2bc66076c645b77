import secureJson from 'secure-json-parse';
import { fail } from '../../src/core/errors.js';
import { MAX_JSON_DEPTH, nestsDeeperThan, valueNestsDeeperThan } from '../../src/core/json-depth.js';
import { refuseLoneSurrogates } from '../../src/core/well-formed.js';

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
 * A request's JSON body (non-empty, trimmed text) as a value, with secure-json-parse's
 * protection (`__proto__` keys, and `constructor` keys holding a `prototype`, removed).
 * Too deep (MAX_JSON_DEPTH) is a 400 saying so, judged first, as before parsing; unparsable
 * JSON a 400 with the parser's message. Parsed first and the depth checked on the value, which
 * is cheaper than scanning every character (V8's JSON.parse does not recurse, so a deep text
 * cannot overflow it); the text is scanned only when it does not parse.
 */
export function parseJsonBody(text: string): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    if (nestsDeeperThan(text, MAX_JSON_DEPTH)) throw fail('invalid_json_too_deep', MAX_JSON_DEPTH);
    throw fail('invalid_json', (error as Error).message);
  }
  if (valueNestsDeeperThan(value, MAX_JSON_DEPTH)) throw fail('invalid_json_too_deep', MAX_JSON_DEPTH);
  // Every name that reaches Redis or a URL comes from a body, a path or a query; paths and
  // queries are percent-decoded as UTF-8, which cannot make a lone surrogate.
  refuseLoneSurrogates(text, value, 'body');
  if (typeof value !== 'object' || value === null || !mayHoldPrototypeKeys(text)) return value;
  return secureJson.scan(value, SECURE_OPTIONS);
}
