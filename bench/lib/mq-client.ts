// A keep-alive JSON client of the message queue v3 API over node:http, for the MQ benches.
import http from 'node:http';

/** The server a bench drives (what bench/lib/child-server.ts sends). */
export interface Target {
  url: string;
  token: string;
  projectId: string;
  /** A plain redis:// URL (with a cluster: of one node). */
  redisUrl: string;
  /** What createRedisClient takes to reach the same Redis, whatever its topology. */
  redisConnection: string;
}

export class Client {
  private readonly agent: http.Agent;
  private readonly base: URL;

  constructor(
    private readonly target: Target,
    sockets: number,
  ) {
    this.agent = new http.Agent({ keepAlive: true, maxSockets: sockets });
    this.base = new URL(target.url);
  }

  request(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    return new Promise((resolve, reject) => {
      const request = http.request(
        {
          agent: this.agent,
          host: this.base.hostname,
          port: this.base.port,
          method,
          path: `/3/projects/${this.target.projectId}/queues/${path}`,
          headers: {
            Authorization: `OAuth ${this.target.token}`,
            'Content-Type': 'application/json',
            ...(payload === undefined ? {} : { 'Content-Length': Buffer.byteLength(payload) }),
          },
        },
        (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            resolve({ status: response.statusCode ?? 0, body: text === '' ? undefined : JSON.parse(text) });
          });
        },
      );
      request.on('error', reject);
      request.end(payload);
    });
  }

  close(): void {
    this.agent.destroy();
  }
}

/** The body of a response with the expected status; throws on any other. */
export function check(response: { status: number; body: any }, status: number): any {
  if (response.status !== status) throw new Error(`unexpected ${response.status}: ${JSON.stringify(response.body)}`);
  return response.body;
}
