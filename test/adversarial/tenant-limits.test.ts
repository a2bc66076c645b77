import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { expectHealthyAndIntact, newTenant, storeVictimData, type Tenant } from './helpers-a.js';

// A tenant cannot grow its projects or tokens without bound: the sets every listing reads stay small.
let server: TestServer;
let victim: Tenant;
let greedy: Tenant;

beforeAll(async () => {
  server = await startTestServer({ FERRUM_MAX_PROJECTS_PER_USER: '3', FERRUM_MAX_TOKENS_PER_USER: '3' });
  victim = await newTenant(server, 'victim');
  greedy = await newTenant(server, 'greedy');
  await storeVictimData(victim);
});

afterAll(async () => {
  await server?.stop();
});

it('has at most the capped number of projects (403 naming the setting); admins are not capped', async () => {
  // newTenant made one project.
  for (const name of ['second', 'third']) expect((await greedy.http.post('/1/projects', { name })).status).toBe(201);
  const refused = await greedy.http.post('/1/projects', { name: 'fourth' });
  expect(refused.status).toBe(403);
  expect(refused.body.msg).toContain('FERRUM_MAX_PROJECTS_PER_USER');
  const forGreedy = await server.http.post('/1/projects', { name: 'given-by-an-admin', user_id: greedy.id });
  expect(forGreedy.status, forGreedy.text).toBe(201);
  // Deleting one makes room only below the cap again.
  expect((await greedy.http.delete(`/1/projects/${forGreedy.body.id}`)).status).toBe(200);
  const second = (await greedy.http.get('/1/projects')).body.projects.find((p: any) => p.name === 'second');
  expect((await greedy.http.delete(`/1/projects/${second.id}`)).status).toBe(200);
  expect((await greedy.http.post('/1/projects', { name: 'replacement' })).status).toBe(201);
  await expectHealthyAndIntact(server, victim);
});

it('has at most the capped number of API tokens (403 naming the setting); admins are not capped', async () => {
  // createUserWithToken made one token.
  for (const name of ['two', 'three']) expect((await greedy.http.post('/1/tokens', { name })).status).toBe(201);
  const refused = await greedy.http.post('/1/tokens', { name: 'four' });
  expect(refused.status).toBe(403);
  expect(refused.body.msg).toContain('FERRUM_MAX_TOKENS_PER_USER');
  expect((await server.http.post('/1/tokens', { name: 'by-admin', user_id: greedy.id })).status).toBe(201);
  await expectHealthyAndIntact(server, victim);
});
