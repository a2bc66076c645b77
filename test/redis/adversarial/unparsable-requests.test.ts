import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { useTestServer } from '../../helpers/test-file.js';

// Requests Node's HTTP parser refuses before any route runs are answered like every other 4xx,
// in the API's error shape (found by the generated requests of test/redis/generated).

const server = useTestServer({ FERRUM_FUNCTIONS_PORT: '0' });

/** Writes `request` on a connection of its own and reads everything until the server closes it. */
function exchange(port: number, request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.end(request));
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('utf8')));
    socket.on('error', reject);
  });
}

const mainPort = () => Number(new URL(server.url).port);
const statusLines = (answer: string) => answer.match(/^HTTP\/1\.1 \d{3}/gm) ?? [];
const bodyOf = (answer: string) => JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4));

describe('requests the HTTP parser refuses', () => {
  it('answers a URL past the header size limit 431 with {"msg"}', async () => {
    const answer = await exchange(mainPort(), `GET /health?${'x'.repeat(70_000)} HTTP/1.1\r\nHost: a\r\n\r\n`);
    expect(statusLines(answer)).toEqual(['HTTP/1.1 431']);
    expect(bodyOf(answer)).toEqual({ msg: 'Request headers (the URL included) are larger than the server accepts' });
  });

  it('answers bytes that are not HTTP 400 with {"msg"} naming the problem', async () => {
    const answer = await exchange(mainPort(), 'HELLO THERE\r\n\r\n');
    expect(statusLines(answer)).toEqual(['HTTP/1.1 400']);
    expect(bodyOf(answer).msg).toMatch(/^Malformed HTTP request: /);
  });

  it('answers the functions listener in its own shape', async () => {
    const answer = await exchange(
      server.running.functionsPort!,
      `GET /r/a?${'x'.repeat(70_000)} HTTP/1.1\r\nHost: a\r\n\r\n`,
    );
    expect(statusLines(answer)).toEqual(['HTTP/1.1 431']);
    expect(bodyOf(answer).error.message).toMatch(/larger than the server accepts/);
  });
});
