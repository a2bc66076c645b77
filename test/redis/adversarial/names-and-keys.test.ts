import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { uploadForm, zipOf } from '../../helpers/worker.js';
import {
  expectHealthyAndIntact,
  newTenant,
  storeVictimData,
  type Tenant,
} from '../../helpers/adversarial/tenant-data.js';
import { scaled } from '../../helpers/pace.js';

// Names and keys a tenant gives: a lone surrogate in a subscriber URL or a dead-letter queue
// name was a 500 (URIError in encodeURIComponent); `stack: "constructor"` found
// Object.prototype's member and the task failed inspecting `function Object() { [native code] }`;
// zip links named `a/././esc` passed the link check and pointed at the container's root.
let server: TestServer;
let victim: Tenant;
let hostile: Tenant;

beforeAll(async () => {
  server = await startTestServer();
  victim = await newTenant(server, 'names-victim');
  hostile = await newTenant(server, 'names-hostile');
  await storeVictimData(victim);
}, scaled(60_000));

afterAll(async () => {
  await server?.stop();
});

/** A JSON body with a lone surrogate written as JSON writes it, `\ud800`. */
const withLoneSurrogate = (body: object) => JSON.stringify(body).replace('LONE', '\\ud800');

describe('names that are not well-formed Unicode', () => {
  const queue = '/3/projects/PROJECT/queues';
  const cases = () => [
    {
      what: 'a subscriber URL',
      path: `${queue}/pushed`,
      body: { queue: { type: 'multicast', push: { subscribers: [{ name: 's', url: 'http://example.com/LONE' }] } } },
      field: 'body.queue.push.subscribers[0].url',
    },
    {
      what: 'a dead-letter queue name',
      path: `${queue}/lettered`,
      body: { queue: { dead_letter: { queue_name: 'dlqLONE', max_reservations: 3 } } },
      field: 'body.queue.dead_letter.queue_name',
    },
    {
      what: 'a cache item key in a body',
      path: '/1/projects/PROJECT/caches/c/items/k',
      body: { value: 'v', LONE: 1 },
      field: 'body key',
    },
  ];

  it.each(cases().map((each) => [each.what, each] as const))('refuses %s (400 naming it)', async (_what, each) => {
    const path = each.path.replace('PROJECT', hostile.projectId);
    const response = await hostile.http.request('PUT', path, {
      raw: withLoneSurrogate(each.body),
      headers: { 'content-type': 'application/json' },
    });
    expect(response.status, response.text).toBe(400);
    expect(response.body.msg).toBe(`${each.field} is not well-formed Unicode (it holds a lone surrogate)`);
  });

  it('accepts a well-formed pair written as escapes', async () => {
    const response = await hostile.http.request('PUT', `/1/projects/${hostile.projectId}/caches/c/items/k`, {
      raw: '{"value":"\\ud83d\\ude00"}',
      headers: { 'content-type': 'application/json' },
    });
    expect(response.status, response.text).toBe(200);
    const read = await hostile.http.get(`/1/projects/${hostile.projectId}/caches/c/items/k`);
    expect(read.body.value).toBe('😀');
  });
});

describe("names looked up in the installation's tables", () => {
  it.each(['constructor', '__proto__', 'toString', 'hasOwnProperty'])('refuses the stack %s (400)', async (stack) => {
    const zip = await zipOf({ 'run.sh': 'echo hi' });
    const response = await hostile.http.post(`/2/projects/${hostile.projectId}/codes`, undefined, {
      raw: uploadForm({ name: `job-${stack}`, stack, file_name: 'run.sh' }, zip),
    });
    expect(response.status, response.text).toBe(400);
    expect(response.body.msg).toMatch(/stack/);
  });

  it.each(['constructor', 'toString'])('refuses the runtime %s (400)', async (runtime) => {
    const zip = await zipOf({ 'run.sh': 'echo hi' });
    const response = await hostile.http.post(`/2/projects/${hostile.projectId}/codes`, undefined, {
      raw: uploadForm({ name: `rt-${runtime}`, runtime, file_name: 'run.sh' }, zip),
    });
    expect(response.status, response.text).toBe(400);
    expect(response.body.msg).toMatch(/runtime/);
  });
});

describe('zip links named with `.` or empty parts', () => {
  it.each([
    ['a/././esc', '../../..'],
    ['a//esc', '../..'],
    ['./esc', '..'],
  ])('refuses %s → %s at upload (400)', async (name, target) => {
    const zip = await zipOf({ 'a/x.txt': 'x', 'run.sh': 'echo hi' }, { links: { [name]: target } });
    const response = await hostile.http.post(`/2/projects/${hostile.projectId}/codes`, undefined, {
      raw: uploadForm({ name: 'linked', stack: 'busybox', file_name: 'run.sh' }, zip),
    });
    expect(response.status, response.text).toBe(400);
    expect(response.body.msg).toMatch(/symbolic link leaving the package/);
  });

  it('leave the server healthy and the victim intact', async () => {
    await expectHealthyAndIntact(server, victim);
  });
});
