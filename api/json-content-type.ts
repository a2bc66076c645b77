import type { FastifyInstance } from 'fastify';

/** What every JSON answer of Ferrum says it is: RFC 8259 defines no charset parameter. */
export const JSON_CONTENT_TYPE = 'application/json';

// fastify 5 (lib/reply.js) labels every JSON answer it serializes, and every string sent with a
// JSON type but no charset, `application/json; charset=utf-8`: there is no option to turn that
// off. Some clients compare the type exactly (iron_mq_java reads an error's {"msg"} only when
// `getContentType().equals("application/json")`), so the label is replaced just before the
// headers are written. One comparison per answer; any other type (text logs, metrics, HTML)
// passes unchanged. A function's own answer labelled exactly so is relabelled too (same meaning).
const FASTIFY_JSON = 'application/json; charset=utf-8';

/** Every JSON answer, errors and 404s included, leaves as exactly `Content-Type: application/json`. */
export function installJsonContentType(app: FastifyInstance): void {
  // Callback style: no promise per response.
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (reply.getHeader('content-type') === FASTIFY_JSON) reply.header('content-type', JSON_CONTENT_TYPE);
    done(null, payload);
  });
}
