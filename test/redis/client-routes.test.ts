import Router, { type HTTPMethod } from 'find-my-way';
import { describe, expect, it } from 'vitest';
import { apiClient } from '../../client/endpoints.js';
import type { Method, RequestOptions, Transport } from '../../client/transport.js';
import { routesByMethodOf } from '../../controller/http/route-list.js';
import { useTestServer } from '../helpers/test-file.js';

const server = useTestServer();

/** The server's route table as a router: what a request path reaches, by method. */
function serverRouter() {
  const router = Router();
  for (const { method, url } of routesByMethodOf(server.running.app)) {
    // A catch-all would take any path; the client must name a real route.
    if (url === '*' || url === '/*' || router.hasRoute(method as HTTPMethod, url)) continue;
    router.on(method as HTTPMethod, url, () => undefined);
  }
  return router;
}

interface Sent {
  endpoint: string;
  method: Method;
  path: string;
  options?: RequestOptions;
}

/** A transport that only records what the client would send, answering every request with {}. */
function recordingTransport(sent: Sent[], endpoint: () => string): Transport {
  const record = (method: Method, path: string, options?: RequestOptions) => {
    sent.push({ endpoint: endpoint(), method, path, options });
    return Promise.resolve({} as never);
  };
  return { json: record, text: (method, path, options) => record(method, path, options), projectId: () => 'p1' };
}

type AnyFunction = (...args: string[]) => unknown;

describe('the shared API client (client/) against the routes the server registers', () => {
  it('sends every endpoint to a registered route with its method', async () => {
    const sent: Sent[] = [];
    let current = '';
    const client = apiClient(recordingTransport(sent, () => current));
    const { paths: _paths, ...groups } = client;
    const endpoints = Object.entries(groups).flatMap(([group, fns]) =>
      Object.entries(fns as unknown as Record<string, AnyFunction>).map(([name, fn]) => ({
        id: `${group}.${name}`,
        fn,
      })),
    );
    expect(endpoints.length).toBeGreaterThan(60);
    for (const { id, fn } of endpoints) {
      current = id;
      // Every argument a name or id: the endpoints put them in paths and bodies as given.
      await fn('a1', 'b2', 'c3', 'd4');
    }
    const router = serverRouter();
    const unrouted = sent.filter(({ method, path }) => router.find(method, path) === null);
    expect(unrouted).toEqual([]);
    expect(new Set(sent.map((each) => each.endpoint))).toEqual(new Set(endpoints.map((each) => each.id)));
  });

  it('names registered routes for the requests its callers send raw', () => {
    const client = apiClient(recordingTransport([], () => ''));
    const router = serverRouter();
    const methods: HTTPMethod[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];
    const raw = Object.entries(client.paths as Record<string, AnyFunction>).map(([name, fn]) => ({
      name,
      path: fn('a1', 'hello/world') as string,
    }));
    expect(raw.length).toBeGreaterThan(0);
    const unrouted = raw.filter(({ path }) => methods.every((method) => router.find(method, path) === null));
    expect(unrouted).toEqual([]);
  });

  it('would notice a path the server does not have', () => {
    const router = serverRouter();
    expect(router.find('GET', '/3/projects/p1/queue/a1')).toBeNull();
    expect(router.find('POST', '/3/projects/p1/queues/a1/messages/b2/release')).not.toBeNull();
    expect(router.find('GET', '/3/projects/p1/queues/a1/messages/b2/release')).toBeNull();
  });
});
