// The floor of a dashboard load: a bare node:http server answering each request with the bytes
// Ferrum answered it with in a recorded load (status, content type, body; nothing computed, no
// compression, no authentication), so a load from it costs the browser what the same page costs
// with a server that does nothing.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Page } from 'playwright-core';

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

/** The answers of one load, by `METHOD path?query`. */
export type Recording = Map<string, Answer>;

const KEPT_HEADERS = ['content-type', 'location'];

const keyOf = (method: string, url: string) => {
  const parsed = new URL(url, 'http://floor');
  return `${method} ${parsed.pathname}${parsed.search}`;
};

/** Records into `into` every answer `page` gets from `origin`; the returned call stops and awaits the pending ones. */
export function recordAnswers(page: Page, origin: string, into: Recording): () => Promise<void> {
  const pending: Promise<void>[] = [];
  let stopped = false;
  page.on('response', (response) => {
    if (stopped || !response.url().startsWith(origin)) return;
    const request = response.request();
    const headers: Record<string, string> = {};
    for (const name of KEPT_HEADERS) {
      const value = response.headers()[name];
      if (value !== undefined) headers[name] = value;
    }
    const body =
      response.status() >= 300 && response.status() < 400 ? Promise.resolve(Buffer.alloc(0)) : response.body();
    pending.push(
      body.then(
        (bytes) =>
          void into.set(keyOf(request.method(), response.url()), { status: response.status(), headers, body: bytes }),
        () => undefined, // a body the browser no longer holds: that request is left out
      ),
    );
  });
  return async () => {
    stopped = true;
    await Promise.all(pending);
  };
}

/** A bare node:http server answering from `recording()` (which the caller may switch between loads); 404 for the rest. */
export async function startReplayServer(
  recording: () => Recording,
): Promise<{ url: string; missed: Set<string>; close(): void }> {
  const missed = new Set<string>();
  const server = http.createServer((request, response) => {
    request.resume();
    const key = keyOf(request.method ?? 'GET', request.url ?? '/');
    const answer = recording().get(key);
    if (!answer) {
      missed.add(key);
      response.writeHead(404).end();
      return;
    }
    response.writeHead(answer.status, { ...answer.headers, 'content-length': answer.body.length });
    response.end(answer.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    missed,
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}
