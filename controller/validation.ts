import { Ajv, type ErrorObject } from 'ajv';
import type { FastifyInstance } from 'fastify';
import { HttpError } from '../src/core/errors.js';
import { validatingWithoutNulls } from '../src/core/null-fields.js';

// Bodies are JSON: a wrong type is an error, never coerced. Query strings and path
// parameters are text: "10" becomes 10 where the schema wants a number.
const bodyAjv = new Ajv({ coerceTypes: false, useDefaults: true, allErrors: false, strict: false });
const textAjv = new Ajv({ coerceTypes: 'array', useDefaults: true, allErrors: false, strict: false });

/** A route's body check: nulls dropped where its schema says they mean "not given" (null-fields.ts), then the schema. */
export function bodyValidatorOf(schema: unknown) {
  return validatingWithoutNulls(bodyAjv.compile(schema as object), schema);
}

/** A route that declares a body schema: method(s), URL pattern, schema. */
export interface RouteBody {
  method: string | string[];
  url: string;
  schema: unknown;
}

const routeBodies = new WeakMap<FastifyInstance, RouteBody[]>();

/** Every route of the app (as built by installValidation's app) that declares a body schema. */
export function routeBodiesOf(app: FastifyInstance): readonly RouteBody[] {
  return routeBodies.get(app) ?? [];
}

export function installValidation(app: FastifyInstance): void {
  const bodies: RouteBody[] = [];
  routeBodies.set(app, bodies);
  app.addHook('onRoute', ({ method, url, schema }) => {
    if (schema?.body) bodies.push({ method, url, schema: schema.body });
  });
  app.setValidatorCompiler(({ schema, httpPart }) =>
    httpPart === 'body' ? bodyValidatorOf(schema) : textAjv.compile(schema),
  );
  app.setSchemaErrorFormatter((errors, context) => validationError(errors as ErrorObject[], context));
  // A body-less request to a route that expects a body (or a body of JSON `null`: not given)
  // is checked as {} so a missing field answers 406 naming the field rather than "body must be object".
  app.addHook('preValidation', (request, _reply, done) => {
    if ((request.body === undefined || request.body === null) && request.routeOptions.schema?.body) {
      request.body = {};
      request.emptyJsonBody = true;
    }
    done();
  });
}

function fieldName(error: ErrorObject, context: string): string {
  const path = error.instancePath
    .split('/')
    .filter(Boolean)
    .map((part) => (/^\d+$/.test(part) ? `[${part}]` : `.${part}`))
    .join('')
    .replace(/^\./, '');
  const missing = error.keyword === 'required' ? (error.params as { missingProperty: string }).missingProperty : '';
  const parts = [path, missing].filter(Boolean);
  if (parts.length === 0) return context === 'body' ? 'body' : context;
  return parts.join(path && missing ? '.' : '');
}

/** A schema failure becomes 406 for a missing field, 400 for anything else, naming the field. */
export function validationError(errors: ErrorObject[], context: string): HttpError {
  const first = errors[0];
  if (!first) return new HttpError(400, `invalid ${context}`);
  const field = fieldName(first, context);
  if (first.keyword === 'required') return new HttpError(406, `${field} is required`);
  if (first.keyword === 'enum') {
    const allowed = (first.params as { allowedValues: unknown[] }).allowedValues.join(', ');
    return new HttpError(400, `${field} must be one of: ${allowed}`);
  }
  return new HttpError(400, `${field} ${first.message ?? 'is invalid'}`);
}
