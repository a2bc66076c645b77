import type { FastifyRequest } from 'fastify';

/** Query parameters that carry a credential: the platform's clients may send the token as `?oauth=`. */
const SECRET_PARAMS = /([?&](?:oauth|token)=)[^&#]*/gi;

/** `url` with the values of credential-carrying query parameters replaced. */
export function urlForLog(url: string): string {
  return url.replace(SECRET_PARAMS, '$1[redacted]');
}

/**
 * A request as logged (FERRUM_LOG_REQUESTS=1, and errors): fastify's own fields, the URL without
 * a token in its query; headers (Authorization, Cookie) are never logged.
 */
export function requestForLog(request: FastifyRequest) {
  return {
    method: request.method,
    url: urlForLog(request.url),
    host: request.host,
    remoteAddress: request.ip,
    remotePort: request.socket?.remotePort,
  };
}
