import http from 'node:http';
import { afterAll, beforeAll } from 'vitest';
import type { RedisClient } from '../../src/core/redis.js';
import { eventually } from './eventually.js';
import type { TestServer } from './server.js';
import { useBeforeAll, useTestServer } from './test-file.js';
import { ProjectClient } from './project-client.js';

/** Header names a push carries itself, so messages and subscribers may not set them (any case). */
export const RESERVED_PUSH_HEADERS = [
  'Content-Type',
  'user-agent',
  'Service-Message-Id',
  'SERVICE-RESERVATION-ID',
  'Service-Subscriber-Name',
  'Service-Subscriber-Message-Url',
];

/** A push subscriber as a v3 queue's settings name it. */
export interface PushSubscriber {
  name: string;
  url: string;
  headers?: Record<string, string>;
}

/** The settings (createQueue's) of a push queue to `subscribers`, with `push` fields beside them. */
export function pushQueueSettings(
  subscribers: PushSubscriber[],
  push: Record<string, unknown> = {},
  type: 'multicast' | 'unicast' = 'multicast',
) {
  return { type, push: { subscribers, ...push } };
}

/** Shortcuts for the version 3 message queue API in tests. */
export class MqClient extends ProjectClient {
  path(queue: string, rest = ''): string {
    return `/3/projects/${this.projectId}/queues/${encodeURIComponent(queue)}${rest}`;
  }

  async post(
    queue: string,
    messages: Array<{ body: string; delay?: number; push_headers?: Record<string, string> }>,
  ): Promise<string[]> {
    const response = await this.http.post(this.path(queue, '/messages'), { messages });
    if (response.status !== 201) throw new Error(`post failed: ${response.status} ${response.text}`);
    return response.body.ids;
  }

  async postBodies(queue: string, ...bodies: string[]): Promise<string[]> {
    return this.post(
      queue,
      bodies.map((body) => ({ body })),
    );
  }

  async reserve(queue: string, options: Record<string, unknown> = {}): Promise<any[]> {
    const response = await this.http.post(this.path(queue, '/reservations'), options);
    if (response.status !== 200) throw new Error(`reserve failed: ${response.status} ${response.text}`);
    return response.body.messages;
  }

  async info(queue: string): Promise<any> {
    const response = await this.http.get(this.path(queue));
    if (response.status !== 200) throw new Error(`get queue failed: ${response.status} ${response.text}`);
    return response.body.queue;
  }

  async peek(queue: string, n = 100): Promise<any[]> {
    const response = await this.http.get(this.path(queue, `/messages?n=${n}`));
    if (response.status !== 200) throw new Error(`peek failed: ${response.status} ${response.text}`);
    return response.body.messages;
  }

  delete(queue: string, id: string, reservationId?: string) {
    return this.http.delete(
      this.path(queue, `/messages/${id}`),
      reservationId === undefined ? {} : { reservation_id: reservationId },
    );
  }

  createQueue(queue: string, settings?: Record<string, unknown>) {
    return this.http.put(this.path(queue), settings === undefined ? {} : { queue: settings });
  }

  updateQueue(queue: string, settings: Record<string, unknown>) {
    return this.http.patch(this.path(queue), { queue: settings });
  }
}

let counter = 0;
/** A queue name no other test of the file uses. */
export function uniqueQueue(label: string): string {
  counter += 1;
  return `${label}-${counter}-${Date.now().toString(36)}`;
}

/** A request over node:http, which (unlike fetch) can carry a body on GET as real clients do. */
export function rawRequest(
  baseUrl: string,
  method: string,
  path: string,
  token: string,
  body: unknown,
): Promise<{ status: number; body: any }> {
  const payload = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const request = http.request(
      baseUrl + path,
      {
        method,
        headers: {
          Authorization: `OAuth ${token}`,
          'Content-Type': 'application/json',
          'Content-Length': Buffer.byteLength(payload),
        },
      },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (text += chunk));
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, body: text === '' ? undefined : JSON.parse(text) }),
        );
      },
    );
    request.on('error', reject);
    request.end(payload);
  });
}

/** The push statuses of a message, one per subscriber. */
export async function pushStatuses(mq: MqClient, queue: string, id: string): Promise<any[]> {
  const response = await mq.http.get(mq.path(queue, `/messages/${id}/subscribers`));
  if (response.status !== 200) throw new Error(`push statuses failed: ${response.status} ${response.text}`);
  return response.body.subscribers;
}

/** The push statuses once every subscriber named in `expected` has the status given there. */
export async function settledPushStatuses(
  mq: MqClient,
  queue: string,
  id: string,
  expected: Record<string, string>,
  timeoutMs?: number,
): Promise<any[]> {
  return eventually(async () => {
    const list = await pushStatuses(mq, queue, id);
    return list.length > 0 && list.every((entry) => entry.status === expected[entry.name]) ? list : undefined;
  }, timeoutMs);
}

/** A test file's own server (`env`), a version 3 client of it and a connection that reads its Redis keys. */
export interface MqTestFile {
  server: TestServer;
  mq: MqClient;
  observer: RedisClient;
}

/** The file's server (useTestServer), a version 3 client of it and a Redis connection, set once its tests run. */
export function mqTestFile(env: Record<string, string>): MqTestFile {
  const server = useTestServer(env);
  const file = { server } as MqTestFile;
  beforeAll(() => {
    file.mq = new MqClient(server.http, server.projectId);
    file.observer = server.openRedis();
  });
  afterAll(() => {
    file.observer?.disconnect();
  });
  return file;
}

/** A version 3 client of the file's server (useTestServer) as its admin, made before the file's tests. */
export function useMqClient(server: TestServer): MqClient {
  return useBeforeAll(() => new MqClient(server.http, server.projectId));
}
