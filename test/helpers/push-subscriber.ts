import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { deadlineAfter } from './pace.js';

export interface ReceivedPush {
  headers: http.IncomingHttpHeaders;
  body: string;
  at: number;
}

/** How the subscriber answers its n-th request (0-based): a status code, or 'hang' to never answer. */
export type Answer = (n: number, request: ReceivedPush) => number | 'hang';

/** A real HTTP subscriber on loopback that records what it receives. */
export class TestSubscriber {
  readonly received: ReceivedPush[] = [];
  private readonly server: http.Server;
  private readonly hanging = new Set<http.ServerResponse>();

  private constructor(private answer: Answer) {
    this.server = http.createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const push = { headers: request.headers, body: Buffer.concat(chunks).toString(), at: Date.now() };
        const n = this.received.length;
        this.received.push(push);
        const status = this.answer(n, push);
        if (status === 'hang') this.hanging.add(response);
        else response.writeHead(status).end('ok');
      });
    });
  }

  static async start(answer: Answer = () => 200): Promise<TestSubscriber> {
    const subscriber = new TestSubscriber(answer);
    await new Promise<void>((resolve) => subscriber.server.listen(0, '127.0.0.1', resolve));
    return subscriber;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/push`;
  }

  async waitFor(count: number, timeoutMs = 5000): Promise<ReceivedPush[]> {
    const deadline = deadlineAfter(timeoutMs);
    while (this.received.length < count) {
      if (deadline.passed()) throw new Error(`expected ${count} deliveries, got ${this.received.length}`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    return this.received;
  }

  async stop(): Promise<void> {
    for (const response of this.hanging) response.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** A loopback URL nothing listens on (connection refused). */
export async function refusedUrl(): Promise<string> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}/push`;
}
