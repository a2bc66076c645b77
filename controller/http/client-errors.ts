import http from 'node:http';
import type { Duplex } from 'node:stream';
import { fail } from '../../src/core/errors.js';
import type { ErrorShape } from '../../api/error-handler.js';

/** An error Node's HTTP server reports for a request it could not parse (its `clientError` event). */
type ClientError = Error & { code?: string; reason?: string };

/** The status and message of a request the parser refused: too large a head, too slow, or not HTTP. */
function refusalOf(error: ClientError) {
  if (error.code === 'HPE_HEADER_OVERFLOW') return fail('request_headers_too_large');
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') return fail('request_timeout');
  return fail('malformed_http_request', error.reason ?? error.code ?? 'unreadable');
}

/** Whether the connection's current answer has already gone out (Node's own clientError default checks this too). */
function answered(socket: Duplex): boolean {
  return (socket as Duplex & { _httpMessage?: http.ServerResponse })._httpMessage?.headersSent === true;
}

/**
 * The `clientError` handler: a request Node's parser refused (a URL or headers past the size
 * limit, bytes that are not HTTP) is answered in the API's error shape, like every other 4xx,
 * and the connection closed (its request was never read to its end). No route or hook runs.
 */
export function answerClientErrors(shape: ErrorShape): (error: ClientError, socket: Duplex) => void {
  return (error, socket) => {
    // A reset connection has nobody left to answer.
    if (error.code === 'ECONNRESET' || socket.destroyed) return;
    // Bytes after an answer that closes the connection (a GET's body after a refused URL): the
    // request was answered; a second answer would be read as the next request's (Node does the same).
    if (answered(socket)) {
      socket.destroy();
      return;
    }
    const refusal = refusalOf(error);
    const body = JSON.stringify(shape.body(refusal.message));
    if (socket.writable)
      socket.write(
        `HTTP/1.1 ${refusal.statusCode} ${http.STATUS_CODES[refusal.statusCode]}\r\n` +
          `Content-Length: ${Buffer.byteLength(body)}\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n${body}`,
      );
    socket.destroy();
  };
}
