import { expect } from 'vitest';
import type { HttpClient } from '../http.js';
import { createUserWithToken } from '../identity.js';
import type { TestServer } from '../server.js';
import { useBeforeAll } from '../test-file.js';

/** A tenant of the adversarial suites: a user (not an admin) with its own token and project. */
export interface Tenant {
  /** The user's id (`userId` too). */
  id: string;
  userId: string;
  email: string;
  password: string;
  token: string;
  http: HttpClient;
  projectId: string;
}

/** A fresh user (made by the admin) with a project of its own. */
export async function newTenant(server: TestServer, name: string): Promise<Tenant> {
  const user = await createUserWithToken(server.http, name);
  const project = await user.http.post('/1/projects', { name: `${name}-project` });
  expect(project.status, project.text).toBe(201);
  const { id, email, password, token, http } = user;
  return { id, userId: id, email, password, token, http, projectId: project.body.id };
}

/** The server still answers, and Redis is reachable. */
export async function expectHealthy(server: TestServer): Promise<void> {
  expect((await server.http.get('/health', { token: null })).status).toBe(200);
  expect((await server.http.get('/ready', { token: null })).status).toBe(200);
}

const itemPath = (victim: Tenant, cache: string, key: string) =>
  `/1/projects/${victim.projectId}/caches/${cache}/items/${key}`;

/** Stores a victim's cache item that attacks must leave alone (expectHealthyAndIntact reads it). */
export async function storeVictimData(victim: Tenant, cache = 'mine', key = 'kept'): Promise<void> {
  const put = await victim.http.put(itemPath(victim, cache, key), { value: 'victim data' });
  expect(put.status, put.text).toBe(200);
}

/** The victim's cache item still reads back as storeVictimData wrote it. */
export async function expectVictimDataIntact(victim: Tenant, cache = 'mine', key = 'kept'): Promise<void> {
  const item = await victim.http.get(itemPath(victim, cache, key));
  expect(item.status, item.text).toBe(200);
  expect(item.body.value).toBe('victim data');
}

/** The server still answers, and a victim's cache item still reads back as it was written. */
export async function expectHealthyAndIntact(server: TestServer, victim: Tenant, cache = 'mine', key = 'kept') {
  expect((await server.http.get('/health')).status).toBe(200);
  await expectVictimDataIntact(victim, cache, key);
}

/** Stores the victim's item now; the function returned checks it is still there, unchanged. */
export async function plantVictimData(victim: Tenant): Promise<() => Promise<void>> {
  await storeVictimData(victim, 'victim', 'precious');
  return () => expectVictimDataIntact(victim, 'victim', 'precious');
}

/** A tenant (newTenant) made before the file's tests, once the file's server runs (useTestServer). */
export function useTenant(server: TestServer, name: string): Tenant {
  return useBeforeAll(() => newTenant(server, name));
}

/** A tenant made before the file's tests, holding the data expectHealthyAndIntact reads (storeVictimData). */
export function useVictim(server: TestServer, name = 'victim'): Tenant {
  return useBeforeAll(async () => {
    const victim = await newTenant(server, name);
    await storeVictimData(victim);
    return victim;
  });
}
