import { expect } from 'vitest';
import { eventually as waitUntil } from '../eventually.js';
import type { HttpClient } from '../http.js';
import { createUserWithToken } from '../identity.js';
import type { TestServer } from '../server.js';

/** A tenant of the adversarial suites: a user with its own token and project. */
export interface Tenant {
  id: string;
  token: string;
  http: HttpClient;
  projectId: string;
}

/** A fresh user (made by the admin) with a project of its own. */
export async function newTenant(server: TestServer, name: string): Promise<Tenant> {
  const user = await createUserWithToken(server.http, name);
  const project = await user.http.post('/1/projects', { name: `${name}-project` });
  expect(project.status, project.text).toBe(201);
  return { id: user.id, token: user.token, http: user.http, projectId: project.body.id };
}

/** The server still answers, and a victim's cache item still reads back as it was written. */
export async function expectHealthyAndIntact(server: TestServer, victim: Tenant, cache = 'mine', key = 'kept') {
  expect((await server.http.get('/health')).status).toBe(200);
  const item = await victim.http.get(`/1/projects/${victim.projectId}/caches/${cache}/items/${key}`);
  expect(item.status, item.text).toBe(200);
  expect(item.body.value).toBe('victim data');
}

/** Stores the item expectHealthyAndIntact looks for. */
export async function storeVictimData(victim: Tenant, cache = 'mine', key = 'kept') {
  const put = await victim.http.put(`/1/projects/${victim.projectId}/caches/${cache}/items/${key}`, {
    value: 'victim data',
  });
  expect(put.status, put.text).toBe(200);
}

/** Polls `check` until it returns true; fails after `timeoutMs`. */
export async function eventually(what: string, check: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  await waitUntil(check, timeoutMs, what);
}
