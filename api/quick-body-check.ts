/** A hand-written check that accepts only bodies its schema accepts and that hold no null to drop. */
export type QuickBodyCheck = (body: unknown) => boolean;

const quickChecks = new WeakMap<object, QuickBodyCheck>();

/**
 * Gives a hot route's body schema a hand-written check tried before the schema (the body
 * validator, controller/http/validation.ts): a body it accepts skips the null pruning and the
 * Ajv walk; any other body goes through them as before, so every refusal (and its message)
 * stays the schema's. Returns the schema.
 */
export function withQuickCheck<Schema extends object>(schema: Schema, accepts: QuickBodyCheck): Schema {
  quickChecks.set(schema, accepts);
  return schema;
}

/** The quick check given to a body schema, if any. */
export function quickCheckOf(schema: unknown): QuickBodyCheck | undefined {
  return typeof schema === 'object' && schema !== null ? quickChecks.get(schema) : undefined;
}
