import http from 'node:http';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { healthAnswer } from '../src/core/health.js';

/** The answer of a standalone runner's HTTP server: GET /metrics (Prometheus) and GET /health. */
function handlerOf(registry: Registry): http.RequestListener {
  return (request, response) => {
    const path = (request.url ?? '/').split('?')[0];
    if (request.method === 'GET' && path === '/metrics') {
      registry.metrics().then(
        (text) => response.writeHead(200, { 'Content-Type': registry.contentType }).end(text),
        (error: unknown) =>
          response.writeHead(500, { 'Content-Type': 'application/json' }).end(JSON.stringify({ msg: String(error) })),
      );
    } else if (request.method === 'GET' && path === '/health') {
      response.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(healthAnswer()));
    } else {
      response
        .writeHead(404, { 'Content-Type': 'application/json' })
        .end('{"msg":"Not found: the runner serves /metrics and /health"}');
    }
  };
}

/**
 * Serves a standalone runner's /metrics and /health on HOST:PORT, once listening. A port that
 * cannot be had (a controller or another runner on it) is an error naming the setting to change:
 * a runner without its probes and metrics would look dead to its supervisor.
 */
export async function serveRunnerMetrics(
  registry: Registry,
  host: string,
  port: number,
  log: Logger,
): Promise<http.Server> {
  const server = http.createServer(handlerOf(registry));
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => {
      const why = error.code === 'EADDRINUSE' ? 'it is in use (a controller or another runner?)' : error.message;
      reject(
        new Error(
          `the runner cannot serve /metrics and /health on ${host}:${port}: ${why}; ` +
            'set FERRUM_RUNNER_METRICS_PORT to a free port (0 picks one)',
        ),
      );
    });
    server.listen(port, host, resolve);
  });
  const address = server.address();
  log.info({ host, port: typeof address === 'object' && address ? address.port : port }, 'runner metrics on /metrics');
  return server;
}
