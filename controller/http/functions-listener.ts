import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { FUNCTIONS_ERROR_SHAPE } from '../../api/functions/errors.js';
import { markFunctionsListener } from '../../api/functions/origin.js';
import { answerClientErrors } from './client-errors.js';

export interface FunctionsListener {
  port: number;
  close(): Promise<void>;
}

/**
 * FERRUM_FUNCTIONS_PORT: a second listener whose requests go through the same server (routes,
 * hooks, services), marked as arriving on the functions' own origin, where only /r/ is served.
 */
export async function startFunctionsListener(
  app: FastifyInstance,
  port: number,
  host: string,
): Promise<FunctionsListener> {
  const server = http.createServer((request, response) => {
    markFunctionsListener(request);
    app.routing(request, response);
  });
  server.on('clientError', answerClientErrors(FUNCTIONS_ERROR_SHAPE));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      }),
  };
}
