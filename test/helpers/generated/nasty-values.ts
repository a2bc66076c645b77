import fc from 'fast-check';

/** Names JavaScript objects already carry: as names, keys and fields they must mean nothing special. */
export const PROTOTYPE_NAMES = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf', 'prototype'];

/** Strings that broke servers somewhere: unpaired surrogates, NULs, dot segments, number-ish text, markup. */
const NASTY_TEXT = [
  '',
  ' ',
  '\ud800',
  'a\udc00b',
  '\udfff\ud800',
  '\u0000',
  'a\u0000b',
  '\r\n',
  '..',
  '../../etc/passwd',
  '%',
  '%zz',
  '%00',
  '%2e%2e',
  'NaN',
  'Infinity',
  '-Infinity',
  '-0',
  '1e309',
  '0x1f',
  '1_000',
  '  12  ',
  '9007199254740993',
  '-9223372036854775809',
  'true',
  'null',
  'undefined',
  '[]',
  '{}',
  '{"a":',
  '<script>alert(1)</script>',
  "'; DROP TABLE x; --",
  '\u202e\u0645\u0631\u062d\u0628\u0627',
  '\ud83d\ude00\ud83d\udca9',
  '\ufeff',
  '\uffff',
  '*',
  '{cache:x}',
  'a:b:c',
  ...PROTOTYPE_NAMES,
];

const NASTY_NUMBERS = [
  0,
  -0,
  -1,
  1,
  0.5,
  -1.5,
  2.000001,
  1e21,
  1e308,
  -1e308,
  5e-324,
  Number.MAX_SAFE_INTEGER,
  Number.MAX_SAFE_INTEGER + 2,
  -Number.MAX_SAFE_INTEGER - 2,
  2 ** 31,
  2 ** 32,
  2 ** 63,
  -(2 ** 63),
  2 ** 64,
];

export const nastyText: fc.Arbitrary<string> = fc.oneof(
  { weight: 10, arbitrary: fc.constantFrom(...NASTY_TEXT) },
  { weight: 4, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: 20 }) },
  // Long text: past names' limits, and now and then past the body limit.
  { weight: 1, arbitrary: fc.constantFrom(300, 1025, 70_000).map((n) => 'x'.repeat(n)) },
);

export const nastyNumber: fc.Arbitrary<number> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...NASTY_NUMBERS) },
  { weight: 1, arbitrary: fc.double({ noNaN: true, noDefaultInfinity: true }) },
  { weight: 1, arbitrary: fc.integer() },
);

/** JSON nested `depth` deep, as text (built as text: a value that deep would overflow JSON.stringify). */
export const deepJsonText: fc.Arbitrary<string> = fc
  .tuple(fc.constantFrom(30, 200, 5000, 100_000), fc.boolean())
  .map(([depth, arrays]) =>
    arrays ? '['.repeat(depth) + ']'.repeat(depth) : '{"a":'.repeat(depth) + '1' + '}'.repeat(depth),
  );

/** An object whose own keys include prototype names (`Object.fromEntries` makes `__proto__` an own key, as JSON.parse does). */
export const prototypeKeyedObject: fc.Arbitrary<Record<string, unknown>> = fc
  .array(
    fc.tuple(fc.constantFrom(...PROTOTYPE_NAMES), fc.oneof(fc.constant({}), fc.constant(null), nastyText, nastyNumber)),
    {
      minLength: 1,
      maxLength: 3,
    },
  )
  .map((entries) => Object.fromEntries(entries));

/** Any JSON value of the wrong kind for a field: nulls, arrays where objects go, numbers where text goes. */
export const nastyJson: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: nastyText },
  { weight: 3, arbitrary: nastyNumber },
  { weight: 2, arbitrary: fc.constantFrom(null, true, false, [], {}, [null], [[]], [{}]) },
  { weight: 2, arbitrary: prototypeKeyedObject },
  { weight: 1, arbitrary: fc.array(fc.oneof(nastyText, nastyNumber), { maxLength: 4 }) },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
);
