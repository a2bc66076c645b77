// @ts-check
// What the shared client (client/endpoints.js) needs from whoever carries its requests: the
// dashboard's fetch (web/api.js: session cookie, CSRF header) or the CLI's undici client
// (cli/api-client.ts: token, base URL). Each answers a non-2xx status with its own error.

/** @typedef {'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'} Method */
/** @typedef {Record<string, string | number | boolean | undefined>} Query */
/** @typedef {{ query?: Query, json?: unknown }} RequestOptions */

/**
 * @typedef {object} Transport
 * @property {<T>(method: Method, path: string, options?: RequestOptions) => Promise<T>} json
 *   sends the request; resolves to the 2xx answer parsed as JSON
 * @property {(method: Method, path: string, options?: RequestOptions) => Promise<string>} text
 *   sends the request; resolves to the 2xx answer as text
 * @property {() => string} projectId the project the `/projects/{id}` paths name; throws when there is none
 */

export {};
