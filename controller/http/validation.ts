import { Ajv } from 'ajv';
import type { FastifyInstance, preValidationHookHandler } from 'fastify';
import { validatingWithoutNulls } from '../../src/core/null-fields.js';
import { quickCheckOf } from '../../api/quick-body-check.js';
import { routeListOf } from './route-list.js';

// Bodies are JSON: a wrong type is an error, never coerced. Query strings and path
// parameters are text: "10" becomes 10 where the schema wants a number.
const bodyAjv = new Ajv({ coerceTypes: false, useDefaults: true, allErrors: false, strict: false, verbose: true });
const textAjv = new Ajv({ coerceTypes: 'array', useDefaults: true, allErrors: false, strict: false, verbose: true });

/** A route's body check: nulls dropped where its schema says they mean "not given" (null-fields.ts), then the schema. */
export function bodyValidatorOf(schema: unknown) {
  const full = validatingWithoutNulls(bodyAjv.compile(schema as object), schema);
  const quick = quickCheckOf(schema);
  if (!quick) return full;
  const checked = (body: unknown): boolean => {
    if (quick(body)) {
      checked.errors = null;
      return true;
    }
    const valid = full(body);
    checked.errors = full.errors;
    return valid;
  };
  checked.errors = null as typeof full.errors;
  return checked;
}

/** A route that declares a body schema: method(s), URL pattern, schema. */
export interface RouteBody {
  method: string | string[];
  url: string;
  schema: unknown;
}

/** Every route of the app (see route-list.ts) that declares a body schema. */
export function routeBodiesOf(app: FastifyInstance): RouteBody[] {
  return routeListOf(app).flatMap(({ method, url, schema }) =>
    schema?.body ? [{ method, url, schema: schema.body }] : [],
  );
}

export function installValidation(app: FastifyInstance): void {
  app.setValidatorCompiler(({ schema, httpPart }) =>
    httpPart === 'body' ? bodyValidatorOf(schema) : textAjv.compile(schema),
  );
  // A body-less request to a route that expects a body (or a body of JSON `null`: not given)
  // is checked as {} so a missing field answers 406 naming the field rather than "body must be object".
  // Only routes that declare a body schema get the hook, decided once here: a route without one
  // (function calls, reads) runs no preValidation step at all.
  const emptyBodyAsObject: preValidationHookHandler = (request, _reply, done) => {
    if (request.body === undefined || request.body === null) {
      request.body = {};
      request.emptyJsonBody = true;
    }
    done();
  };
  app.addHook('onRoute', (route) => {
    if (route.schema?.body) route.preValidation = [emptyBodyAsObject, ...[route.preValidation ?? []].flat()];
  });
}
