import type { TestServer } from './server.js';
import { useBeforeAll } from './test-file.js';
import { ProjectClient } from './project-client.js';

/** Shortcuts for the version 1 message queue API in tests. */
export class MqV1Client extends ProjectClient {
  path(queue: string, rest = ''): string {
    return `/1/projects/${this.projectId}/queues/${encodeURIComponent(queue)}${rest}`;
  }

  async post(queue: string, messages: Array<Record<string, unknown>>): Promise<string[]> {
    const response = await this.http.post(this.path(queue, '/messages'), { messages });
    if (response.status !== 201) throw new Error(`v1 post failed: ${response.status} ${response.text}`);
    return response.body.ids;
  }

  async get(queue: string, query = ''): Promise<{ messages: any[]; timeout: number }> {
    const response = await this.http.get(this.path(queue, `/messages${query}`));
    if (response.status !== 200) throw new Error(`v1 get failed: ${response.status} ${response.text}`);
    return response.body;
  }

  async peek(queue: string, n = 100): Promise<any[]> {
    const response = await this.http.get(this.path(queue, `/messages/peek?n=${n}`));
    if (response.status !== 200) throw new Error(`v1 peek failed: ${response.status} ${response.text}`);
    return response.body.messages;
  }

  async size(queue: string): Promise<number> {
    const response = await this.http.get(this.path(queue));
    if (response.status !== 200) throw new Error(`v1 info failed: ${response.status} ${response.text}`);
    return response.body.size;
  }

  update(queue: string, body: Record<string, unknown>) {
    return this.http.post(this.path(queue), body);
  }
}

/** A version 1 client of the file's server (useTestServer) as its admin, made before the file's tests. */
export function useMqV1Client(server: TestServer): MqV1Client {
  return useBeforeAll(() => new MqV1Client(server.http, server.projectId));
}
