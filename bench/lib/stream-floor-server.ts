// The floor of a hot `http-stream` call on this machine: the same data path without Ferrum. A bare
// Node HTTP server (no fastify, authentication, Redis, call records, logs or metrics) that sends
// each request's body as POST /call, with the contract's headers, to an idle one of the same hot
// containers' unix sockets through undici (one keep-alive connection per container, one call at a
// time, as Ferrum's runner does), and answers with the function's body. The functions bench runs
// it in a process of its own, so that its CPU is read from /proc as the server's is.
// It does less than Ferrum per call on purpose, and the comparison stays fair: it reads no stderr
// (Ferrum's server still reads the containers' stderr meanwhile, printed apart as "Ferrum server",
// never added to the floor's figure), makes no call id, record, log, metric or quota check, and
// sends only the contract's headers it needs. That work is the platform's own, which the ratio to
// the floor is there to measure; the data path (HTTP in, the same containers over the same kind
// of keep-alive unix socket, HTTP out) is the same.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from 'undici';

/** An undici client per container socket, lent to one call at a time; callers beyond them wait in turn. */
function lender(socketPaths: string[]): { take(): Client | Promise<Client>; give(client: Client): void } {
  const idle = socketPaths.map(
    (socketPath) =>
      new Client('http://localhost', {
        socketPath,
        pipelining: 1,
        keepAliveTimeout: 600_000,
        keepAliveMaxTimeout: 600_000,
        headersTimeout: 0,
        bodyTimeout: 0,
      }),
  );
  const waiting: ((client: Client) => void)[] = [];
  return {
    take: () => idle.pop() ?? new Promise<Client>((resolve) => waiting.push(resolve)),
    give: (client) => {
      const next = waiting.shift();
      if (next) next(client);
      else idle.push(client);
    },
  };
}

/** POST /call of `body` on the client's socket: the answer's status, content type and body. */
function exchange(
  client: Client,
  headers: Record<string, string>,
  body: Buffer,
): Promise<{ status: number; contentType: string; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let contentType = 'text/plain';
    let status = 502;
    client.dispatch(
      { path: '/call', method: 'POST', headers, body },
      {
        onRequestStart() {},
        onResponseStart(_controller, statusCode, responseHeaders) {
          status = statusCode;
          contentType = String(responseHeaders['content-type'] ?? contentType);
        },
        onResponseData(_controller, chunk) {
          chunks.push(chunk);
        },
        onResponseEnd() {
          resolve({ status, contentType, body: Buffer.concat(chunks) });
        },
        onResponseError(_controller, error) {
          reject(error);
        },
      },
    );
  });
}

/** Serves any request on a free port by relaying it to the sockets; sends its URL to the parent, stops on any message. */
export async function serveStreamFloor(socketPaths: string[]): Promise<void> {
  const clients = lender(socketPaths);
  let calls = 0;
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', async () => {
      const client = await clients.take();
      const headers = {
        'Fn-Call-Id': `floor-${++calls}`,
        'Fn-Deadline': new Date(Date.now() + 30_000).toISOString(),
        'Fn-Http-Method': request.method ?? 'POST',
        'Fn-Http-Request-Url': `http://${request.headers.host}${request.url}`,
        'Content-Type': request.headers['content-type'] ?? 'application/octet-stream',
      };
      try {
        const answer = await exchange(client, headers, Buffer.concat(chunks));
        response
          .writeHead(answer.status, { 'content-type': answer.contentType, 'content-length': answer.body.length })
          .end(answer.body);
      } catch (error) {
        response.writeHead(502).end(String(error));
      } finally {
        clients.give(client);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  process.send!({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` });
  process.on('message', () => {
    server.close();
    process.exit(0);
  });
}
