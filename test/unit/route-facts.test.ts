import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { installRouteFacts, routeFacts, type RouteFacts } from '../../controller/http/route-facts.js';

// The body reader, the large-body gate and the parser read the route's facts
// from its record: it must say what fastify's own routeOptions say, for every route.
describe('route facts', () => {
  let app: FastifyInstance;
  afterEach(() => app.close());

  function appWith(seen: (RouteFacts | null)[]): FastifyInstance {
    app = Fastify({ bodyLimit: 1000 });
    installRouteFacts(app);
    app.addHook('preHandler', (request, _reply, done) => {
      seen.push(request.routeFacts);
      done();
    });
    return app;
  }

  it("hands each route's limit, body schema and config to its requests, the same on every request", async () => {
    const seen: (RouteFacts | null)[] = [];
    const app = appWith(seen);
    const schema = { body: { type: 'object' } };
    app.post('/small', { bodyLimit: 10, schema, config: { bodyBytes: 'messages' } as never }, async () => ({}));
    await app.register(async (scope) => {
      scope.post('/list', { schema: { body: { type: 'array' } } }, async () => ({}));
    });
    for (const _ of [1, 2]) {
      const small = await app.inject({ method: 'POST', url: '/small', payload: {} });
      expect(small.statusCode).toBe(200);
    }
    expect((await app.inject({ method: 'POST', url: '/list', payload: [] })).statusCode).toBe(200);
    expect(seen[0]).toMatchObject({ bodyLimit: 10, takesObject: true, bodySchema: schema.body });
    expect(seen[0]!.config.bodyBytes).toBe('messages');
    expect(seen[1]).toBe(seen[0]);
    expect(seen[2]).toMatchObject({ bodyLimit: 1000, takesObject: false, bodySchema: { type: 'array' } });
  });

  it("reads what no route matched from fastify's routeOptions: the server's limit, no schema", async () => {
    const facts: RouteFacts[] = [];
    const app = appWith([]);
    app.setNotFoundHandler((request, reply) => {
      facts.push(routeFacts(request));
      void reply.code(404).send({ msg: 'Not found' });
    });
    await app.inject({ method: 'POST', url: '/nowhere', payload: {} });
    expect(facts).toEqual([expect.objectContaining({ bodyLimit: 1000, bodySchema: undefined, takesObject: false })]);
  });
});
