import type { IncomingMessage, ServerResponse } from 'node:http';
import type {
  FastifyBaseLogger,
  FastifyInstance,
  FastifyPluginAsync,
  FastifyPluginOptions,
  FastifyRequest,
  FastifyTypeProvider,
  RawServerDefault,
} from 'fastify';
import type { FromSchema, JSONSchema } from 'json-schema-to-ts';

/**
 * Route inputs (params, querystring, body, headers) typed from their JSON schemas, so handlers
 * read `request.body` as the schema says instead of casting it. Replies are not typed from the
 * response schemas: views shape them, and the schemas serialize (and so check) them at run time.
 */
export interface SchemaTypes extends FastifyTypeProvider {
  validator: this['schema'] extends JSONSchema ? FromSchema<this['schema']> : unknown;
  serializer: unknown;
}

/** A fastify plugin whose routes are typed from their schemas. */
export type ApiPlugin<Options extends FastifyPluginOptions = Record<never, never>> = FastifyPluginAsync<
  Options,
  RawServerDefault,
  SchemaTypes
>;

/** The instance an ApiPlugin is given, for route groups registered by plain functions. */
export type ApiInstance = FastifyInstance<
  RawServerDefault,
  IncomingMessage,
  ServerResponse,
  FastifyBaseLogger,
  SchemaTypes
>;

/** A request whose path parameters include `Params`, for helpers shared by several routes. */
export type WithParams<Params> = FastifyRequest & { params: Params };
