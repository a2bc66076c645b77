import { acceptsNull } from '../../src/core/null-fields.js';

type Schema = Record<string, any>;

/** A request body built from a route's schema, and the paths of the fields it sends as null. */
export interface NullBody {
  body: unknown;
  nulled: string[];
}

/**
 * `shallow`: every optional field is null. `deep`: optional objects and lists are given (their
 * own optional fields null), optional scalars are null. Required fields get a plain valid value.
 */
export type NullStyle = 'shallow' | 'deep';

function firstType(schema: Schema): string | undefined {
  const types: unknown[] = Array.isArray(schema.type) ? schema.type : [schema.type];
  const type = types.find((candidate) => candidate !== 'null');
  if (typeof type === 'string') return type;
  if (schema.properties || schema.additionalProperties) return 'object';
  return undefined;
}

function isContainer(schema: Schema): boolean {
  const type = firstType(schema);
  return type === 'object' || type === 'array';
}

function sample(schema: Schema, path: string, style: NullStyle, nulled: string[]): unknown {
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.enum)) return schema.enum.find((value: unknown) => value !== null);
  switch (firstType(schema)) {
    case 'object':
      return sampleObject(schema, path, style, nulled);
    case 'array':
      return [sample(schema.items ?? {}, `${path}[0]`, style, nulled)];
    case 'integer':
    case 'number':
      return schema.minimum ?? (schema.exclusiveMinimum !== undefined ? schema.exclusiveMinimum + 1 : 1);
    case 'boolean':
      return false;
    default:
      // Strings (and fields checked by hand): short, within every id and name pattern of the API.
      return 'nulls-walk'.padEnd(schema.minLength ?? 1, 'x');
  }
}

function sampleObject(schema: Schema, path: string, style: NullStyle, nulled: string[]): Record<string, unknown> {
  const required = new Set<string>(schema.required ?? []);
  const value: Record<string, unknown> = {};
  for (const [name, property] of Object.entries<Schema>(schema.properties ?? {})) {
    const at = path ? `${path}.${name}` : name;
    if (required.has(name) || (style === 'deep' && isContainer(property))) {
      value[name] = sample(property, at, style, nulled);
    } else if (!acceptsNull(property)) {
      value[name] = null;
      nulled.push(at);
    }
  }
  const others = schema.additionalProperties;
  if (typeof others === 'object' && !acceptsNull(others)) {
    value.unlisted_field = null;
    nulled.push(path ? `${path}.unlisted_field` : 'unlisted_field');
  }
  return value;
}

export function nullBodyOf(schema: Schema, style: NullStyle): NullBody {
  const nulled: string[] = [];
  return { body: sample(schema, '', style, nulled), nulled };
}

/** The message of an error answer: {"msg"} on most APIs, {"error":{"message"}} on the functions API. */
export function errorMessageOf(body: any): string {
  const msg: unknown = body?.msg ?? body?.error?.message;
  return typeof msg === 'string' ? msg : '';
}

/**
 * Whether an error answer refuses one of the null fields for what it is (our messages start
 * with the field's path). "… is required" is what a missing field answers, so not a refusal.
 */
export function blamesNullField(body: unknown, nulled: string[]): boolean {
  const msg = errorMessageOf(body);
  if (msg.endsWith(' is required')) return false;
  return nulled.some((path) => msg.startsWith(`${path} `) || msg.startsWith(`${path}.`));
}
