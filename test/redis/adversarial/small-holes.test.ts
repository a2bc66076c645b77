import { beforeAll, describe, expect, it } from 'vitest';
import { useTenant, useVictim, expectHealthyAndIntact } from '../../helpers/adversarial/tenant-data.js';
import { useTestServer } from '../../helpers/test-file.js';
import { withoutHostPaths } from '../../../src/core/host-paths.js';
import { uploadForm, WorkerClient, zipOf } from '../../helpers/worker.js';

// Out-of-range times, cron lines that beat the floor later in their cycle, deeply nested JSON,
// names and keys a tenant gives: each is a clear 400, never a 500. A lone surrogate in a
// subscriber URL or a dead-letter queue name was a 500 (URIError in encodeURIComponent);
// `stack: "constructor"` found Object.prototype's member and the task failed inspecting
// `function Object() { [native code] }`; zip links named `a/././esc` passed the link check and
// pointed at the container's root.
const server = useTestServer();
const victim = useVictim(server);
const hostile = useTenant(server, 'hostile');

beforeAll(async () => {
  await new WorkerClient(hostile.http, hostile.projectId).upload(
    { name: 'job', image: 'busybox', command: 'true' },
    await zipOf({ 'x.txt': 'x' }),
  );
});

const schedule = (fields: Record<string, unknown>) => ({ schedules: [{ code_name: 'job', payload: '', ...fields }] });

describe('schedule times', () => {
  it.each([
    ['start_at past year 9999', { start_at: '+200000-01-01T00:00:00Z', run_every: 3600 }, 'start_at must be between'],
    ['start_at at the end of time', { start_at: '+275760-09-13T00:00:00.000Z', run_every: 60 }, 'start_at must be'],
    ['start_at before 1970', { start_at: '0000-01-01T00:00:00Z', run_every: 60 }, 'start_at must be between'],
    ['end_at at the end of time', { end_at: '+275760-09-13T00:00:00.000Z', run_every: 60 }, 'end_at must be between'],
    ['cron at the end of time', { cron: '* * * * *', start_at: '+275760-09-12T23:59:00.000Z' }, 'start_at must be'],
    ['a huge run_every', { run_every: 1e300 }, 'run_every must be at most'],
    ['a run_every past ten years', { run_every: 9007199254740991 }, 'run_every must be at most'],
    ['a huge task delay', { run_every: 60, delay: 1e300 }, 'delay must be between 0 and 604800'],
    [
      'a cron line that never runs before end_at',
      { cron: '0 0 1 1 *', end_at: new Date(Date.now() + 60_000).toISOString() },
      'would never run',
    ],
  ])('refuses %s (400)', async (_name, fields, message) => {
    const response = await hostile.http.post(`/2/projects/${hostile.projectId}/schedules`, schedule(fields));
    expect(response.status, response.text).toBe(400);
    expect(response.body.msg).toContain(message);
  });

  it('holds the 60 s cron floor over the whole cycle, not just the first two runs', async () => {
    // Runs at :05:00 and :05:01 each hour: starting just after the pair, the first two runs are an hour apart.
    const start = new Date();
    start.setUTCMinutes(5, 30, 0);
    const response = await hostile.http.post(
      `/2/projects/${hostile.projectId}/schedules`,
      schedule({ cron: '0,1 5 * * * *', start_at: start.toISOString() }),
    );
    expect(response.status, response.text).toBe(400);
    expect(response.body.msg).toBe('cron runs must be at least 60 seconds apart');
  });

  it('accepts an hourly cron line with one seconds value', async () => {
    const response = await hostile.http.post(
      `/2/projects/${hostile.projectId}/schedules`,
      schedule({ cron: '30 5 * * * *' }),
    );
    expect(response.status, response.text).toBe(200);
  });
});

describe('deeply nested JSON', () => {
  const nested = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);

  it.each([
    [
      'a cache value',
      'PUT',
      () => `/1/projects/${hostile.projectId}/caches/c/items/k`,
      (d: string) => `{"value":${d}}`,
    ],
    [
      'push headers',
      'POST',
      () => `/3/projects/${hostile.projectId}/queues/q/messages`,
      (d: string) => `{"messages":[{"body":"x","push_headers":${d}}]}`,
    ],
    ['a project body', 'POST', () => '/1/projects', (d: string) => `{"name":"x","extra":${d}}`],
    ['a task body', 'POST', () => `/2/projects/${hostile.projectId}/tasks`, (d: string) => `{"tasks":${d}}`],
  ])('in %s is a 400, never a 500', async (_name, method, path, body) => {
    // 20,000 levels is 40 KB: within every route's body limit (a larger body is a 413 first).
    for (const depth of [100, 20_000]) {
      const response = await hostile.http.request(method, path(), {
        raw: body(nested(depth)),
        headers: { 'content-type': 'application/json' },
      });
      expect(response.status, response.text).toBe(400);
      expect(response.body.msg).toContain('nested deeper than 64 levels');
    }
  });

  it('is no concern below the limit, and brackets inside strings do not count', async () => {
    const value = JSON.parse(nested(30)) as unknown;
    const put = await hostile.http.put(`/1/projects/${hostile.projectId}/caches/c/items/shallow`, { value });
    expect(put.status, put.text).toBe(200);
    const text = await hostile.http.put(`/1/projects/${hostile.projectId}/caches/c/items/text`, {
      value: '['.repeat(1000),
    });
    expect(text.status, text.text).toBe(200);
  });
});

describe('error messages', () => {
  it('never show host paths', () => {
    expect(withoutHostPaths("ENOENT: no such file or directory, open '/var/lib/ferrum/blob.zip'")).toBe(
      "ENOENT: no such file or directory, open '<path>'",
    );
    expect(withoutHostPaths(`cannot read ${process.cwd()}/src/x.ts`)).toBe('cannot read <path>/src/x.ts');
    expect(withoutHostPaths('Endpoint not found: GET /1/projects/x/var')).toBe(
      'Endpoint not found: GET /1/projects/x/var',
    );
  });

  it('of a bad multipart upload name no path', async () => {
    const response = await hostile.http.request('POST', `/2/projects/${hostile.projectId}/codes`, {
      raw: 'garbage',
      headers: { 'content-type': 'multipart/form-data; boundary=xx' },
    });
    expect(response.status).toBe(400);
    expect(response.text).not.toMatch(/\/(tmp|var|home|root|work)\//);
  });

  it('leave the server healthy and the victim intact', async () => {
    await expectHealthyAndIntact(server, victim);
  });
});

describe('push headers', () => {
  const queue = (name: string) => `/3/projects/${hostile.projectId}/queues/${name}`;
  const subscriberWith = (headers: Record<string, string>) => ({
    queue: { type: 'multicast', push: { subscribers: [{ name: 's', url: 'http://example.com/hook', headers }] } },
  });

  it.each([
    ['a CR LF in a value', { 'X-Note': 'fine\r\nX-Injected: yes' }, 'CR, LF'],
    ['a bare LF in a value', { 'X-Note': 'fine\nX-Injected: yes' }, 'CR, LF'],
    ['a NUL in a value', { 'X-Note': 'fine\u0000' }, 'CR, LF'],
    ['a colon in a name', { 'X-Note: yes\r\nX-Other': 'v' }, 'HTTP header name'],
    ['a space in a name', { 'X Note': 'v' }, 'HTTP header name'],
  ])('refuses %s with 400, in subscribers and in messages; nothing is stored', async (_what, headers, problem) => {
    const created = await hostile.http.put(queue('headers'), subscriberWith(headers));
    expect(created.status).toBe(400);
    expect(created.body.msg).toContain(problem);
    expect((await hostile.http.get(queue('headers'))).status).toBe(404);
    expect((await hostile.http.put(queue('plain'), { queue: {} })).status).toBe(200);
    const posted = await hostile.http.post(`${queue('plain')}/messages`, {
      messages: [{ body: 'x', push_headers: headers }],
    });
    expect(posted.status).toBe(400);
    expect(posted.body.msg).toContain(problem);
  });

  it('accepts ordinary headers, a tab in a value included', async () => {
    const created = await hostile.http.put(queue('tabbed'), subscriberWith({ 'X-Note': 'one\ttwo' }));
    expect(created.status, created.text).toBe(200);
  });
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
  it("refuses a code upload's name that is not well-formed Unicode (400)", async () => {
    const response = await hostile.http.post(`/2/projects/${hostile.projectId}/codes`, undefined, {
      raw: uploadForm('{"name":"job\\ud800","image":"busybox"}'),
    });
    expect(response.status, response.text).toBe(400);
    expect(response.body.msg).toBe('data.name is not well-formed Unicode (it holds a lone surrogate)');
  });

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
});
