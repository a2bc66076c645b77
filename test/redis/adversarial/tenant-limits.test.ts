import { expect, it } from 'vitest';
import { useTenant, useVictim, expectHealthyAndIntact, newTenant } from '../../helpers/adversarial/tenant-data.js';
import { useTestServer } from '../../helpers/test-file.js';

// A tenant cannot grow its projects or tokens without bound: the sets every listing reads stay small.
const server = useTestServer({ FERRUM_MAX_PROJECTS_PER_USER: '3', FERRUM_MAX_TOKENS_PER_USER: '3' });
const victim = useVictim(server);
const greedy = useTenant(server, 'greedy');

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

it('does not count projects shared with a user toward its cap; the user may leave a share', async () => {
  const sharer = await newTenant(server, 'sharer');
  const recipient = await newTenant(server, 'recipient');
  const shared = [sharer.projectId];
  for (const name of ['s2', 's3']) shared.push((await sharer.http.post('/1/projects', { name })).body.id);
  for (const id of shared)
    expect((await sharer.http.patch(`/1/projects/${id}/share`, [recipient.id])).status).toBe(200);
  // Three shared projects and one of its own: the recipient still creates up to its own cap.
  for (const name of ['own-2', 'own-3']) expect((await recipient.http.post('/1/projects', { name })).status).toBe(201);
  expect((await recipient.http.post('/1/projects', { name: 'own-4' })).status).toBe(403);
  // Leaving a share: it is no longer listed and no longer usable.
  const left = await recipient.http.post(`/1/projects/${shared[0]}/leave`, {});
  expect(left.status, left.text).toBe(200);
  const listed = (await recipient.http.get('/1/projects')).body.projects.map((p: any) => p.id);
  expect(listed).not.toContain(shared[0]);
  expect(listed).toContain(shared[1]);
  expect((await recipient.http.get(`/1/projects/${shared[0]}`)).status).toBe(403);
  expect((await sharer.http.get(`/1/projects/${shared[0]}`)).body.shared_with).toEqual([]);
  // Only a user a project is shared with may leave it.
  expect((await recipient.http.post(`/1/projects/${shared[0]}/leave`, {})).status).toBe(403);
  expect((await recipient.http.post(`/1/projects/${recipient.projectId}/leave`, {})).status).toBe(400);
  const byAdmin = await server.http.post(`/1/projects/${shared[1]}/leave`, {});
  expect(byAdmin.status).toBe(404);
  await expectHealthyAndIntact(server, victim);
});
