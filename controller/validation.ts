import { Ajv, type ErrorObject } from 'ajv';
import type { FastifyInstance } from 'fastify';
import { HttpError } from '../src/core/errors.js';

// Bodies are JSON: a wrong type is an error, never coerced. Query strings and path
// parameters are text: "10" becomes 10 where the schema wants a number.
const bodyAjv = new Ajv({ coerceTypes: false, useDefaults: true, allErrors: false, strict: false });
const textAjv = new Ajv({ coerceTypes: 'array', useDefaults: true, allErrors: false, strict: false });

export function installValidation(app: FastifyInstance): void {
  app.setValidatorCompiler(({ schema, httpPart }) => (httpPart === 'body' ? bodyAjv : textAjv).compile(schema));
  app.setSchemaErrorFormatter((errors, context) => validationError(errors as ErrorObject[], context));
  // A body-less request to a route that expects a body is checked as {} so a missing
  // field answers 406 naming the field rather than "body must be object".
  app.addHook('preValidation', (request, _reply, done) => {
    if (request.body === undefined && request.routeOptions.schema?.body) {
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
