// A keep-alive JSON client of the message queue v3 API over undici's Pool (Node's own HTTP client
// behind fetch), for bench:mq-rabbitmq. It spends about half the CPU per request of node:http's
// client (mq-client.ts) on the same batches (4.2-7.5 against 8.2-11.4 µs per consumed message on a
// loaded 2-core machine): a load generator that shares the machine's cores with the servers it
// measures should take as little of them as it can, as amqplib does for RabbitMQ.
import { Pool } from 'undici';
import type { Target } from './mq-client.js';

export class PoolClient {
  private readonly pool: Pool;
  private readonly headers: Record<string, string>;

  constructor(
    private readonly target: Target,
    sockets: number,
  ) {
    this.pool = new Pool(target.url, { connections: sockets });
    this.headers = { authorization: `OAuth ${target.token}`, 'content-type': 'application/json' };
  }

  async request(method: 'POST' | 'DELETE', path: string, body?: unknown): Promise<{ status: number; body: any }> {
    const answer = await this.pool.request({
      method,
      path: `/3/projects/${this.target.projectId}/queues/${path}`,
      headers: this.headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      // undici closes the connection after a request with a body whose method expects none (a
      // batch DELETE) unless told not to: each batch would then open a new connection.
      reset: false,
    });
    const text = await answer.body.text();
    return { status: answer.statusCode, body: text === '' ? undefined : JSON.parse(text) };
  }

  close(): void {
    void this.pool.close();
  }
}
