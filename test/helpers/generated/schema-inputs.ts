import fc from 'fast-check';
import { nastyJson, nastyNumber, nastyText, PROTOTYPE_NAMES } from './nasty-values.js';

/** The parts of a JSON schema the generator reads. */
export interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  additionalProperties?: boolean | JsonSchema;
  required?: string[];
  items?: JsonSchema;
  enum?: unknown[];
  minimum?: number;
  maximum?: number;
  maxLength?: number;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
}

/**
 * Values a handler checks itself (the schema says little: "anything but null"): plausible
 * shapes, so the generated input gets past the schema into the handler's own checks.
 * Long polls (`wait`, `wait_ms`) only get values that keep the answer immediate.
 */
const FIELD_HINTS: Record<string, fc.Arbitrary<unknown>> = {
  subscribers: fc.array(
    fc.record({
      name: fc.oneof(fc.constantFrom('s1', 's2'), nastyText),
      url: fc.constantFrom(
        'http://127.0.0.1:9/x',
        'http://169.254.169.254/latest',
        'ironmq:///fuzz-target',
        'ironmq:///__proto__',
        'ironworker:///fuzz-code',
        'ironworker:///nope',
        'file:///etc/passwd',
        'http://[::1]:9/',
        'not a url',
      ),
      headers: fc.oneof(fc.constant({ 'X-A': 'b' }), nastyJson),
    }),
    { maxLength: 3 },
  ),
  alerts: fc.array(
    fc.record({
      type: fc.constantFrom('fixed', 'progressive', 'x'),
      trigger: fc.oneof(fc.constantFrom(1, 10), nastyNumber),
      direction: fc.constantFrom('asc', 'desc', 'up'),
      queue: fc.constantFrom('fuzz-target', 'fuzz-alerts', '__proto__', ''),
      snooze: fc.oneof(fc.constant(0), nastyNumber),
    }),
    { maxLength: 2 },
  ),
  push_type: fc.constantFrom('multicast', 'unicast', 'pull', 'x'),
  code_name: fc.constantFrom('fuzz-code', 'nope', '__proto__'),
  cluster: fc.constantFrom('default', 'nope', '__proto__'),
  cron: fc.constantFrom('* * * * *', '0 0 1 1 *', '*/0 * * * *', '61 * * * *', 'x', '0,1 5 * * * *'),
  timezone: fc.constantFrom('UTC', 'Europe/Paris', 'Mars/Base', '__proto__'),
  start_at: fc.constantFrom('2030-01-01T00:00:00Z', '+275760-09-13T00:00:00.000Z', '0000-01-01T00:00:00Z', 'x'),
  end_at: fc.constantFrom('2031-01-01T00:00:00Z', '1970-01-01T00:00:00Z', 'yesterday'),
  // A huge `wait` (1e308) is a valid long poll, served as the documented 30 s (reservationOf).
  wait: fc.constantFrom(0, -1, 0.5, '1', 'x', null, -1e308),
  wait_ms: fc.constantFrom(0, -1, 0.5, 'x', 1e308),
  path: fc.constantFrom('/fuzz', '/a/../b', '/', '', '/__proto__', '/x/*', 'no-slash'),
  // Ack-and-next: entries past the schema's shape checks, repeats, and one past the 100 allowed.
  delete_reserved: fc.oneof(
    fc.array(
      fc.record({
        id: fc.oneof(fc.constantFrom('0', '__proto__', 'x'.repeat(300)), nastyText),
        reservation_id: fc.oneof(fc.constantFrom('r', ''), nastyText),
      }),
      { maxLength: 3 },
    ),
    fc.constant([
      { id: '1', reservation_id: 'r' },
      { id: '1', reservation_id: 'r' },
    ]),
    fc.constant(Array.from({ length: 101 }, (_, i) => ({ id: String(i), reservation_id: 'r' }))),
    nastyJson,
  ),
  image: fc.constantFrom('busybox', 'ferrum-test/busybox', 'UPPER/case', 'a@sha256:zz', ''),
};

function typesOf(schema: JsonSchema): string[] {
  if (Array.isArray(schema.type)) return schema.type;
  return schema.type ? [schema.type] : [];
}

/** A value meant to pass `schema` at its outer layer: in range, of its type, fields from its properties. */
function fittingValue(schema: JsonSchema, depth: number): fc.Arbitrary<unknown> {
  if (schema.enum) return fc.constantFrom(...schema.enum);
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (alternatives) return fc.oneof(...alternatives.map((part) => inputFor(part, depth)));
  const [type] = typesOf(schema);
  switch (type) {
    case 'string':
      return fc.oneof(fc.string({ maxLength: Math.min(schema.maxLength ?? 20, 20) }), nastyText);
    case 'integer':
    case 'number':
      return fc.oneof(
        fc.integer({ min: Math.max(schema.minimum ?? -5, -1e6), max: Math.min(schema.maximum ?? 100, 1e6) }),
        fc.constantFrom(schema.minimum ?? 0, schema.maximum ?? -1),
        nastyNumber,
      );
    case 'boolean':
      return fc.boolean();
    case 'array':
      return fc.array(inputFor(schema.items ?? {}, depth + 1), { maxLength: 3 });
    case 'object':
      return objectFor(schema, depth);
    default:
      return nastyJson;
  }
}

function objectFor(schema: JsonSchema, depth: number): fc.Arbitrary<unknown> {
  const required = new Set(schema.required ?? []);
  // A required field is left out now and then (1 in 8), an optional one more often (1 in 3).
  const fields = Object.entries(schema.properties ?? {}).map(([name, field]) =>
    fc.option(fc.tuple(fc.constant(name), FIELD_HINTS[name] ?? inputFor(field, depth + 1)), {
      freq: required.has(name) ? 8 : 3,
    }),
  );
  const strangers = fc.array(fc.tuple(fc.oneof(fc.constantFrom(...PROTOTYPE_NAMES), nastyText), nastyJson), {
    maxLength: 2,
  });
  return fc
    .tuple(fc.tuple(...fields), strangers)
    .map(([own, extra]) => Object.fromEntries([...own.filter((entry) => entry !== null), ...extra]));
}

/** A generated value for `schema`: mostly one that fits its outer layer, sometimes one of the wrong kind. */
export function inputFor(schema: JsonSchema, depth = 0): fc.Arbitrary<unknown> {
  if (depth > 4) return nastyJson;
  return fc.oneof({ weight: 5, arbitrary: fittingValue(schema, depth) }, { weight: 1, arbitrary: nastyJson });
}

/** The text form of a generated value for a query string or path: numbers as JSON would print them. */
export function asText(value: unknown): string {
  return typeof value === 'string' ? value : (JSON.stringify(value) ?? '');
}
