import { row } from './row.js';

/** The error table's http rows: the framework's refusals (routing, bodies, schemas). */
export const HTTP_ERRORS = {
  endpoint_not_found: row(404, (method: string, path: string) => `Endpoint not found: ${method} ${path}`),
  method_not_allowed: row(405, (method: string, path: string) => `Method ${method} not allowed on ${path}`),
  internal_error: row(500, 'Internal server error'),
  // fastify's refusals, worded by Ferrum (the handler keeps fastify's status).
  body_too_large: row(413, 'Request body is too large'),
  unsupported_content_type: row(415, 'Unsupported Content-Type'),
  bad_url_encoding: row(400, 'Invalid URL: a path segment is not valid percent-encoding'),
  path_parameter_too_long: row(414, 'URL path parameter too long'),
  // Requests Node's HTTP parser refuses before any route (controller/http/client-errors.ts).
  request_headers_too_large: row(431, 'Request headers (the URL included) are larger than the server accepts'),
  request_timeout: row(408, 'The request did not arrive in time'),
  malformed_http_request: row(400, (problem: string) => `Malformed HTTP request: ${problem}`),
  // Schema failures (api/schema-errors.ts) that name no field; those naming one are FIELD_ERRORS.
  invalid_request_part: row(400, (part: string) => `invalid ${part}`),
  invalid_json_too_deep: row(
    400,
    (part: string, levels: number) => `Invalid JSON ${part}: nested deeper than ${levels} levels`,
  ),
  invalid_json: row(400, (part: string, problem: string) => `Invalid JSON ${part}: ${problem}`),
  ill_formed_unicode: row(400, (where: string) => `${where} is not well-formed Unicode (it holds a lone surrogate)`),
  // Credentials as the HTTP layer reads them (headers, the dashboard's session cookie).
  authorization_not_oauth: row(401, 'Authorization header must be "OAuth <token>"'),
  session_needs_token: row(401, 'POST /ui/session needs "Authorization: OAuth <token>"'),
  session_needs_header: row(401, (header: string) => `POST /ui/session needs the ${header} header`),
  session_cookie_twice: row(401, 'More than one session cookie: sign in again'),
  session_cookie_needs_header: row(
    403,
    (header: string) => `A request signed in by the dashboard's session cookie needs the ${header} header`,
  ),
  // The controller's own readiness (GET /ready).
  controller_draining: row(503, 'shutting down: this controller takes no new work'),
  redis_cannot_take_commands: row(503, (problem: string) => `Redis cannot take commands: ${problem}`),
} as const;
