import http from 'node:http';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';

/**
 * GET /metrics (Prometheus) and GET /health of a standalone runner, on HOST:PORT. A port
 * already taken (a controller on the same machine) costs the metrics only, not the runner.
 */
export function serveRunnerMetrics(registry: Registry, host: string, port: number, log: Logger): http.Server {
  const server = http.createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0];
    if (request.method === 'GET' && path === '/metrics') {
      registry.metrics().then(
        (text) => response.writeHead(200, { 'Content-Type': registry.contentType }).end(text),
        (error: unknown) =>
          response.writeHead(500, { 'Content-Type': 'application/json' }).end(JSON.stringify({ msg: String(error) })),
      );
    } else if (request.method === 'GET' && path === '/health') {
      response.writeHead(200, { 'Content-Type': 'application/json' }).end('{"status":"ok"}');
    } else {
      response
        .writeHead(404, { 'Content-Type': 'application/json' })
        .end('{"msg":"Not found: the runner serves /metrics and /health"}');
    }
  });
  server.on('error', (error) => log.warn({ err: error, port }, 'runner metrics are not served'));
  server.listen(port, host, () => log.info({ host, port }, 'runner metrics on /metrics'));
  return server;
}
