import { beforeAll, expect, it } from 'vitest';
import type { HttpResponse } from '../../helpers/http.js';
import { useTestServer } from '../../helpers/test-file.js';
import { useTenant } from '../../helpers/adversarial/tenant-data.js';
import { scaled } from '../../helpers/pace.js';

// A tenant cannot learn which e-mail addresses have accounts: sharing a project or a cluster
// with an address answers the same whether or not someone has it, and changing one's own
// address (where a taken one would answer 409) is an admin's job.
const server = useTestServer();
const prober = useTenant(server, 'prober');
let target: { email: string; id: string };

beforeAll(async () => {
  const created = await server.http.post('/1/users', { email: 'Someone@Example.com', password: 'pw-of-someone' });
  expect(created.status).toBe(201);
  target = { email: 'someone@example.com', id: created.body.id };
}, scaled(60_000));

/** The answer with what differs by nature (ids, times) taken out. */
function shape(response: HttpResponse, field: string) {
  return { status: response.status, listed: response.body?.[field] };
}

it('shares a project with an existing and an unknown address alike, and the unknown one works once created', async () => {
  const project = (await prober.http.post('/1/projects', { name: 'probe' })).body;
  const path = `/1/projects/${project.id}`;
  const known = await prober.http.patch(`${path}/share`, [target.email]);
  const unknown = await prober.http.patch(`${path}/share`, ['nobody@example.com']);
  expect(known.status).toBe(200);
  expect(unknown.status).toBe(200);
  expect(unknown.body.shared_with).toEqual(['nobody@example.com', target.email]);
  expect((await prober.http.get(path)).body.shared_with).toEqual(['nobody@example.com', target.email]);
  // Unsharing answers alike too.
  expect(shape(await prober.http.patch(`${path}/unshare`, [target.email]), 'shared_with')).toEqual({
    status: 200,
    listed: ['nobody@example.com'],
  });
  expect((await prober.http.patch(`${path}/unshare`, ['ghost@example.com'])).status).toBe(200);
  // The address gets its share when a user is created with it.
  const nobody = await server.http.post('/1/users', { email: 'nobody@example.com', password: 'pw-of-nobody' });
  const token = (await server.http.post('/1/tokens', { name: 't', user_id: nobody.body.id })).body.token;
  expect((await server.http.withToken(token).get(path)).status).toBe(200);
  expect((await prober.http.get(path)).body.shared_with).toEqual(['nobody@example.com']);
});

it('shares a cluster with an existing and an unknown address alike', async () => {
  const known = await prober.http.post('/2/clusters', { name: 'k', shared_to: [target.email] });
  const unknown = await prober.http.post('/2/clusters', { name: 'u', shared_to: ['nobody-else@example.com'] });
  expect(known.status, known.text).toBe(200);
  expect(unknown.status, unknown.text).toBe(200);
  expect(known.body.cluster.shared_to).toEqual([target.email]);
  expect(unknown.body.cluster.shared_to).toEqual(['nobody-else@example.com']);
  const later = await server.http.post('/1/users', { email: 'nobody-else@example.com', password: 'pw' });
  const token = (await server.http.post('/1/tokens', { name: 't', user_id: later.body.id })).body.token;
  const listed = (await server.http.withToken(token).get('/2/clusters')).body.clusters.map((c: any) => c.id);
  expect(listed).toContain(unknown.body.cluster.id);
});

it('answers an e-mail change the same whether or not the address is taken: only admins change one', async () => {
  const taken = await prober.http.patch(`/1/users/${prober.id}`, { email: target.email });
  const free = await prober.http.patch(`/1/users/${prober.id}`, { email: 'free@example.com' });
  expect(taken.status).toBe(403);
  expect(free.status).toBe(403);
  expect(taken.body).toEqual(free.body);
});
