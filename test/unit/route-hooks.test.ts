import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { ProjectBudget } from '../../src/core/project-budget.js';
import { installLargeBodyGate } from '../../controller/http/large-body-gate.js';
import { installRouteFacts } from '../../controller/http/route-facts.js';
import { installValidation } from '../../controller/http/validation.js';

// Each request runs every hook of its route: a hook that can do nothing for a route (the empty
// body's {} on a route without a body schema, a slot's release on a request that holds none) is
// not given to it at all. What the hooks do where they are needed stays as it was.
describe('hooks a route runs only when it needs them', () => {
  let app: FastifyInstance;
  afterEach(() => app.close());

  it('reads an absent body as {} on a route with a body schema; a route without one has no preValidation step', async () => {
    app = Fastify();
    installRouteFacts(app);
    installValidation(app);
    const schema = { body: { type: 'object', required: ['name'], properties: { name: { type: 'string' } } } };
    app.post('/named', { schema, attachValidation: true }, async (request) => ({
      body: request.body,
      empty: request.emptyJsonBody,
      error: request.validationError?.message ?? null,
    }));
    app.post('/r/:app', async () => ({}));
    await app.ready();
    const named = await app.inject({ method: 'POST', url: '/named' });
    expect(named.json()).toEqual({ body: {}, empty: true, error: "body must have required property 'name'" });
    const routes = app.printRoutes({ includeHooks: true, commonPrefix: false });
    const [withSchema, withoutSchema] = routes.split('/r/:app');
    expect(withSchema).toContain('(preValidation)');
    expect(withoutSchema).not.toContain('(preValidation)');
  });

  it('frees a large body’s slot once its answer is sent, with no onResponse hook on any route', async () => {
    app = Fastify();
    installRouteFacts(app);
    app.decorateRequest('project', null);
    app.addHook('onRequest', (request, _reply, done) => {
      (request as { project: { id: string } | null }).project = { id: 'p' };
      done();
    });
    const budget = new ProjectBudget({ bytesPerSecond: 0, burstBytes: 0, sliceBytes: 64 * 1024, writesInFlight: 4 });
    installLargeBodyGate(app, { thresholdBytes: 10, perProject: 1, bytesPerSecond: 0 }, budget);
    app.post('/put', async () => ({ ok: true }));
    await app.ready();
    for (const _ of [1, 2]) {
      const put = await app.inject({ method: 'POST', url: '/put', payload: { value: 'x'.repeat(100) } });
      expect(put.statusCode).toBe(200);
      expect(app.largeBodyGate()).toEqual({ slotKeys: 0, pacedKeys: 0 });
    }
    expect(app.printRoutes({ includeHooks: true })).not.toContain('(onResponse)');
  });
});
