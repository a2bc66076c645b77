import { expect } from 'vitest';
import type { HttpClient } from '../http.js';
import { createUserWithToken } from '../identity.js';
import { startTestServer, type TestServer } from '../server.js';

/**
 * A server as production runs it: no outbound allow-list (the ordinary test server lets
 * pushes reach loopback), plus any settings a test adds.
 */
export function startHardenedServer(env: Record<string, string> = {}): Promise<TestServer> {
  return startTestServer({ FERRUM_OUTBOUND_ALLOW: '', ...env });
}

export interface Tenant {
  userId: string;
  email: string;
  password: string;
  token: string;
  projectId: string;
  http: HttpClient;
}

/** A user of its own (not an admin) with a project of its own. */
export async function createTenant(server: TestServer, label: string): Promise<Tenant> {
  const user = await createUserWithToken(server.http, label);
  const project = await user.http.post('/1/projects', { name: `${label}-project` });
  if (project.status !== 201 && project.status !== 200)
    throw new Error(`project create failed: ${project.status} ${project.text}`);
  const projectId = (project.body.id ?? project.body.project?.id) as string;
  return { userId: user.id, email: user.email, password: user.password, token: user.token, projectId, http: user.http };
}

/** The server still answers and Redis is reachable. */
export async function expectHealthy(server: TestServer): Promise<void> {
  expect((await server.http.get('/health', { token: null })).status).toBe(200);
  expect((await server.http.get('/ready', { token: null })).status).toBe(200);
}

/** The victim's cache item is still there, unchanged: attacks left its data alone. */
export async function plantVictimData(victim: Tenant): Promise<() => Promise<void>> {
  const path = `/1/projects/${victim.projectId}/caches/victim/items/precious`;
  const put = await victim.http.put(path, { value: 'intact' });
  if (put.status !== 200) throw new Error(`cache put failed: ${put.status} ${put.text}`);
  return async () => {
    const read = await victim.http.get(path);
    expect(read.status).toBe(200);
    expect(read.body.value).toBe('intact');
  };
}
