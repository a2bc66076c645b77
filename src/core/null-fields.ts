/**
 * `null` means "not given": official clients send every field they know, unset ones as null
 * (iron_worker_python posts `"label": null, "cluster": null` with each task). From a request
 * body's JSON schema this derives, once per route, the function that deletes in place every
 * null-valued property whose own schema does not accept null, at any depth (properties,
 * additionalProperties, array items). It runs just before the schema validates the body, so an
 * optional field sent as null is simply absent, and a required one sent as null answers the
 * usual 406 "X is required". A property whose schema does accept null (`{}`, a `type` that lists
 * "null", an `enum` with null) is left for the schema and the handler to judge.
 *
 * A body read by hand (a code upload's `data` part) goes through the same validator
 * (api/worker-v2/code-upload.ts): one rule for every API.
 */

type Schema = Record<string, unknown>;

/** Deletes, in place, the null-valued properties its schema says mean "not given". */
export type NullPruner = (value: unknown) => void;

/** A property's schema as far as nulls go. */
interface FieldRule {
  dropsNull: boolean;
  inner: NullPruner | undefined;
}

/**
 * A property schema that accepts anything but null: for fields a handler checks by hand, so
 * that the handler's own messages stay while null still means "not given".
 */
export const ANY_BUT_NULL = { not: { type: 'null' } } as const;

function isSchema(value: unknown): value is Schema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Whether null passes this schema; true where that cannot be told statically (so nothing is dropped). */
export function acceptsNull(schema: unknown): boolean {
  if (schema === false) return false;
  if (!isSchema(schema)) return true;
  if (schema.nullable === true) return true;
  if ('const' in schema) return schema.const === null;
  if (Array.isArray(schema.enum)) return schema.enum.includes(null);
  if (schema.type !== undefined) {
    const types: unknown[] = Array.isArray(schema.type) ? schema.type : [schema.type];
    if (!types.includes('null')) return false;
  }
  if (isSchema(schema.not) && acceptsNull(schema.not)) return false;
  if (Array.isArray(schema.allOf) && !schema.allOf.every(acceptsNull)) return false;
  if (Array.isArray(schema.anyOf) && !schema.anyOf.some(acceptsNull)) return false;
  if (Array.isArray(schema.oneOf) && schema.oneOf.filter(acceptsNull).length !== 1) return false;
  return true;
}

function ruleOf(schema: unknown): FieldRule | undefined {
  const rule = { dropsNull: !acceptsNull(schema), inner: nullPrunerOf(schema) };
  return rule.dropsNull || rule.inner ? rule : undefined;
}

/** Each declared property's rule (undefined: nothing to do), and the rule of undeclared ones. */
interface ObjectRules {
  declared: Map<string, FieldRule | undefined>;
  others: FieldRule | undefined;
}

function pruneObject(value: Record<string, unknown>, { declared, others }: ObjectRules): void {
  for (const key of Object.keys(value)) {
    const rule = declared.has(key) ? declared.get(key) : others;
    if (!rule) continue;
    const item = value[key];
    if (item === null) {
      if (rule.dropsNull) delete value[key];
    } else if (rule.inner) rule.inner(item);
  }
}

/** The pruner of a schema, or undefined when no value of it could hold a null to drop. */
export function nullPrunerOf(schema: unknown): NullPruner | undefined {
  if (!isSchema(schema)) return undefined;
  const properties = isSchema(schema.properties) ? schema.properties : {};
  const declared = new Map(Object.keys(properties).map((name) => [name, ruleOf(properties[name])]));
  const others = isSchema(schema.additionalProperties) ? ruleOf(schema.additionalProperties) : undefined;
  const items = isSchema(schema.items) ? nullPrunerOf(schema.items) : undefined;
  const rules = { declared, others };
  if (!others && !items && [...declared.values()].every((rule) => rule === undefined)) return undefined;
  return (value) => {
    if (Array.isArray(value)) {
      if (items) for (const item of value) items(item);
    } else if (isSchema(value)) pruneObject(value, rules);
  };
}

/** A compiled validator (Ajv's shape: a predicate with its last `errors`). */
export interface Validator {
  (data: unknown): boolean;
  errors?: unknown;
}

/** The body validator of a route: its schema's nulls dropped first, then the schema checked. */
export function validatingWithoutNulls<V extends Validator>(validate: V, schema: unknown): V {
  const prune = nullPrunerOf(schema);
  if (!prune) return validate;
  const checked = ((data: unknown) => {
    prune(data);
    const valid = validate(data);
    checked.errors = validate.errors;
    return valid;
  }) as V;
  return checked;
}
