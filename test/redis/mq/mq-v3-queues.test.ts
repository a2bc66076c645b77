import { beforeAll, describe, expect, it } from 'vitest';
import { useMqClient, MqClient, uniqueQueue } from '../../helpers/mq.js';
import { useTestServer } from '../../helpers/test-file.js';

const server = useTestServer();
const mq = useMqClient(server);
const subscriber = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  url: `http://127.0.0.1:9/${name}`,
  ...extra,
});

/** All that Get answers for pull queue `queue` of the file's project: an empty queue's, `fields` over them. */
const pullQueueInfo = (queue: string, fields: Record<string, unknown> = {}) => ({
  project_id: server.projectId,
  name: queue,
  size: 0,
  total_messages: 0,
  ready: 0,
  delayed: 0,
  reserved: 0,
  message_timeout: 60,
  message_expiration: 604800,
  type: 'pull',
  ...fields,
});

describe('create, get, update, delete', () => {
  it('PUT creates a pull queue with defaults; the answer has no counters', async () => {
    const queue = uniqueQueue('create');
    const response = await mq.createQueue(queue);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      queue: {
        project_id: server.projectId,
        name: queue,
        message_timeout: 60,
        message_expiration: 604800,
        type: 'pull',
      },
    });
    const info = await mq.info(queue);
    expect(info).toEqual(pullQueueInfo(queue));
  });

  it('PUT stores the settings given; read-only fields are ignored; 0 means the default', async () => {
    const queue = uniqueQueue('settings');
    const response = await mq.createQueue(queue, {
      message_timeout: 120,
      message_expiration: 3600,
      name: 'other-name',
      size: 99,
      total_messages: 5,
      project_id: 'someone-else',
    });
    expect(response.body.queue).toMatchObject({
      name: queue,
      project_id: server.projectId,
      message_timeout: 120,
      message_expiration: 3600,
    });
    expect(await mq.info(queue)).toMatchObject({ size: 0, total_messages: 0 });
    const reset = await mq.createQueue(queue, { message_timeout: 0, message_expiration: 0 });
    expect(reset.body.queue).toMatchObject({ message_timeout: 60, message_expiration: 604800 });
  });

  it('PUT on an existing queue updates it and keeps its messages', async () => {
    const queue = uniqueQueue('put-again');
    await mq.postBodies(queue, 'kept');
    const response = await mq.createQueue(queue, { message_timeout: 90 });
    expect(response.status).toBe(200);
    expect(await mq.info(queue)).toMatchObject({ size: 1, total_messages: 1, message_timeout: 90 });
  });

  it('PATCH changes only what is given and answers like Get', async () => {
    const queue = uniqueQueue('patch');
    await mq.createQueue(queue, { message_timeout: 45, message_expiration: 7200 });
    await mq.postBodies(queue, 'a');
    const response = await mq.updateQueue(queue, { message_expiration: 100 });
    expect(response.status).toBe(200);
    expect(response.body.queue).toEqual(
      pullQueueInfo(queue, { size: 1, total_messages: 1, ready: 1, message_timeout: 45, message_expiration: 100 }),
    );
  });

  it('Get counts the messages by state (a Ferrum extension): ready + delayed + reserved = size', async () => {
    const queue = uniqueQueue('by-state');
    await mq.postBodies(queue, ...Array.from({ length: 7 }, (_, i) => `m${i}`));
    await mq.post(queue, [{ body: 'later', delay: 600 }]);
    expect(await mq.reserve(queue, { n: 5, timeout: 600 })).toHaveLength(5);
    expect(await mq.info(queue)).toMatchObject({ size: 8, ready: 2, delayed: 1, reserved: 5, total_messages: 8 });
  });

  it('type is fixed after creation', async () => {
    const queue = uniqueQueue('fixed-type');
    await mq.createQueue(queue);
    const patch = await mq.updateQueue(queue, { type: 'multicast', push: { subscribers: [subscriber('a')] } });
    expect(patch.status).toBe(400);
    expect(patch.body.msg).toMatch(/type cannot be changed/);
    const put = await mq.createQueue(queue, { type: 'unicast', push: { subscribers: [subscriber('a')] } });
    expect(put.status).toBe(400);
    expect((await mq.updateQueue(queue, { type: 'pull', message_timeout: 31 })).status).toBe(200);
  });

  it('DELETE removes the queue and its messages', async () => {
    const queue = uniqueQueue('delete');
    await mq.postBodies(queue, 'a', 'b');
    const response = await mq.http.delete(mq.path(queue));
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ msg: 'Deleted' });
    expect((await mq.http.get(mq.path(queue))).status).toBe(404);
    await mq.postBodies(queue, 'fresh');
    expect(await mq.info(queue)).toMatchObject({ size: 1, total_messages: 1 });
    expect((await mq.reserve(queue, { n: 5 })).map((message) => message.body)).toEqual(['fresh']);
  });
});

describe('validation of the queue object', () => {
  const cases: Array<[string, unknown, number, RegExp]> = [
    ['queue not an object', 'pull', 400, /queue must be an object/],
    ['message_timeout of the wrong type', { message_timeout: '60' }, 400, /queue\.message_timeout must be an integer/],
    [
      'message_timeout below the minimum',
      { message_timeout: 29 },
      400,
      /queue\.message_timeout must be between 30 and 86400/,
    ],
    ['message_timeout above the maximum', { message_timeout: 86401 }, 400, /queue\.message_timeout/],
    ['message_timeout not whole', { message_timeout: 45.5 }, 400, /queue\.message_timeout must be an integer/],
    ['message_expiration above the maximum', { message_expiration: 2592001 }, 400, /queue\.message_expiration/],
    ['message_expiration negative', { message_expiration: -1 }, 400, /queue\.message_expiration/],
    ['unknown type', { type: 'fanout' }, 400, /queue\.type must be one of: pull, unicast, multicast/],
    [
      'push on a pull queue',
      { type: 'pull', push: { subscribers: [subscriber('a')] } },
      400,
      /queue\.push is not allowed on a pull queue/,
    ],
    ['push queue without push', { type: 'multicast' }, 406, /queue\.push\.subscribers is required/],
    ['push without subscribers', { push: { retries: 2 } }, 406, /queue\.push\.subscribers is required/],
    ['push with no subscriber', { push: { subscribers: [] } }, 400, /at least one subscriber/],
    ['push not an object', { push: [] }, 400, /queue\.push must be an object/],
    [
      'subscriber without url',
      { push: { subscribers: [{ name: 'a' }] } },
      406,
      /queue\.push\.subscribers\[0\]\.url is required/,
    ],
    [
      'subscriber without name',
      { push: { subscribers: [{ url: 'http://127.0.0.1/' }] } },
      406,
      /subscribers\[0\]\.name is required/,
    ],
    [
      'subscriber url not http',
      { push: { subscribers: [{ name: 'a', url: 'ftp://host/x' }] } },
      400,
      /http or https URL/,
    ],
    ['subscriber url not a url', { push: { subscribers: [{ name: 'a', url: 'nope' }] } }, 400, /absolute URL/],
    ['subscriber names twice', { push: { subscribers: [subscriber('a'), subscriber('a')] } }, 400, /given twice/],
    [
      'subscriber reserved header',
      { push: { subscribers: [subscriber('a', { headers: { 'Content-Type': 'x' } })] } },
      400,
      /reserved/,
    ],
    [
      'subscriber header not a string',
      { push: { subscribers: [subscriber('a', { headers: { 'X-N': 5 } })] } },
      400,
      /value must be a string/,
    ],
    [
      'retries above 100',
      { push: { subscribers: [subscriber('a')], retries: 101 } },
      400,
      /queue\.push\.retries must be between 0 and 100/,
    ],
    [
      'retries_delay negative',
      { push: { subscribers: [subscriber('a')], retries_delay: -1 } },
      400,
      /queue\.push\.retries_delay/,
    ],
    [
      'error_queue not a string',
      { push: { subscribers: [subscriber('a')], error_queue: 5 } },
      400,
      /queue\.push\.error_queue must be a string/,
    ],
    [
      'dead_letter on a push queue',
      { push: { subscribers: [subscriber('a')] }, dead_letter: { queue_name: 'dl' } },
      400,
      /not allowed on a push queue/,
    ],
    [
      'alerts on a push queue',
      { push: { subscribers: [subscriber('a')] }, alerts: [{ type: 'fixed', trigger: 5, queue: 'q' }] },
      400,
      /alerts cannot be set on a push queue/,
    ],
    [
      'dead_letter without queue_name',
      { dead_letter: { max_reservations: 3 } },
      406,
      /queue\.dead_letter\.queue_name is required/,
    ],
    [
      'dead_letter with an empty queue_name',
      { dead_letter: { queue_name: '' } },
      400,
      /queue\.dead_letter\.queue_name must be a non-empty string/,
    ],
    [
      'dead_letter max_reservations 0',
      { dead_letter: { queue_name: 'dl', max_reservations: 0 } },
      400,
      /max_reservations must be between 1 and 1000/,
    ],
    [
      'dead_letter max_reservations 1001',
      { dead_letter: { queue_name: 'dl', max_reservations: 1001 } },
      400,
      /max_reservations must be between 1 and 1000/,
    ],
    ['dead_letter naming the queue itself', { dead_letter: { queue_name: 'SELF' } }, 400, /must name another queue/],
    ['alerts not a list', { alerts: {} }, 400, /queue\.alerts must be a list/],
    [
      'alert of an unknown type',
      { alerts: [{ type: 'sometimes', trigger: 1, queue: 'q' }] },
      400,
      /queue\.alerts\[0\]\.type/,
    ],
    [
      'alert without trigger',
      { alerts: [{ type: 'fixed', queue: 'q' }] },
      406,
      /queue\.alerts\[0\]\.trigger is required/,
    ],
  ];
  for (const [label, settings, status, message] of cases) {
    it(`${label}: ${status}`, async () => {
      const queue = uniqueQueue('invalid');
      const body = JSON.parse(JSON.stringify(settings).replace('"SELF"', JSON.stringify(queue)));
      const response = await mq.http.put(mq.path(queue), { queue: body });
      expect(response.status).toBe(status);
      expect(response.body.msg).toMatch(message);
      expect((await mq.http.get(mq.path(queue))).status).toBe(404);
    });
  }

  // Each class of bad input the queue schema answers, with the exact generic field row, on PUT and PATCH alike.
  const schemaClasses: Array<[string, unknown, number, string]> = [
    [
      'wrong type',
      { push: { subscribers: [subscriber('a')], retries: 'x' } },
      400,
      'queue.push.retries must be an integer',
    ],
    ['missing required', { alerts: [{ type: 'fixed', trigger: 1 }] }, 406, 'queue.alerts[0].queue is required'],
    [
      'out of range',
      { alerts: [{ type: 'fixed', trigger: 0, queue: 'q' }] },
      400,
      'queue.alerts[0].trigger must be at least 1',
    ],
    [
      'out of range (both bounds)',
      { message_expiration: -1 },
      400,
      'queue.message_expiration must be between 0 and 2592000',
    ],
    ['unknown shape', { push: { subscribers: {} } }, 400, 'queue.push.subscribers must be a list'],
    [
      'not one of',
      { alerts: [{ type: 'fixed', direction: 'up', trigger: 1, queue: 'q' }] },
      400,
      'queue.alerts[0].direction must be one of: asc, desc',
    ],
    ['not a positive rate', { push: { subscribers: [subscriber('a')], rate: 0 } }, 400, 'queue.push.rate must be > 0'],
  ];
  for (const [label, settings, status, msg] of schemaClasses) {
    it(`the schema answers ${label} with its field row, on PUT and PATCH`, async () => {
      const queue = uniqueQueue('schema');
      const put = await mq.http.put(mq.path(queue), { queue: settings });
      expect([put.status, put.body.msg]).toEqual([status, msg]);
      await mq.createQueue(queue);
      const patch = await mq.http.patch(mq.path(queue), { queue: settings });
      expect([patch.status, patch.body.msg]).toEqual([status, msg]);
    });
  }

  it('a body that is not JSON: 400', async () => {
    const response = await mq.http.request('PUT', mq.path(uniqueQueue('bad-json')), {
      raw: '{"queue":',
      headers: { 'Content-Type': 'application/json' },
    });
    expect(response.status).toBe(400);
    expect(response.body.msg).toMatch(/Invalid JSON/);
  });

  it('queue names with spaces, braces, colons and non-ASCII letters work like any other', async () => {
    const name = `odd name {tag}:ü-${Date.now()}`;
    expect((await mq.createQueue(name)).body.queue.name).toBe(name);
    await mq.postBodies(name, 'x');
    expect((await mq.reserve(name))[0].body).toBe('x');
    const listed = await mq.http.get(`/3/projects/${server.projectId}/queues?prefix=${encodeURIComponent('odd name')}`);
    expect(listed.body.queues).toEqual([{ name }]);
  });

  it('queue names: too long, or holding a slash encoded in the path, are refused', async () => {
    expect((await mq.createQueue('n'.repeat(256))).status).toBe(400);
    const slash = await mq.http.put(`/3/projects/${server.projectId}/queues/a%2Fb`, {});
    expect(slash.status).toBe(400);
    expect(slash.body.msg).toMatch(/queue name/);
  });
});

describe('push queues', () => {
  it('push given: a multicast queue with retries and retries_delay defaults; Get shows push', async () => {
    const queue = uniqueQueue('push');
    const response = await mq.createQueue(queue, {
      push: { subscribers: [subscriber('one', { headers: { 'X-Key': 'v' } })], error_queue: 'errors' },
    });
    expect(response.status).toBe(200);
    expect(response.body.queue.type).toBe('multicast');
    expect(response.body.queue.push).toEqual({
      subscribers: [subscriber('one', { headers: { 'X-Key': 'v' } })],
      retries: 3,
      retries_delay: 60,
      error_queue: 'errors',
    });
    expect((await mq.info(queue)).push.subscribers).toHaveLength(1);
  });

  it('unicast with all push fields', async () => {
    const queue = uniqueQueue('unicast');
    const push = {
      subscribers: [subscriber('a'), subscriber('b')],
      retries: 5,
      retries_delay: 10,
      error_queue: 'err',
      rate: 20,
    };
    const response = await mq.createQueue(queue, { type: 'unicast', push });
    expect(response.body.queue).toMatchObject({ type: 'unicast', push });
  });

  it('PATCH updates push fields; subscribers cannot be set on a pull queue', async () => {
    const queue = uniqueQueue('push-patch');
    await mq.createQueue(queue, { push: { subscribers: [subscriber('a')] } });
    const patched = await mq.updateQueue(queue, { push: { retries: 7 } });
    expect(patched.body.queue.push).toMatchObject({ retries: 7, subscribers: [subscriber('a')] });
    const pull = uniqueQueue('pull-patch');
    await mq.createQueue(pull);
    const refused = await mq.updateQueue(pull, { push: { subscribers: [subscriber('a')] } });
    expect(refused.status).toBe(400);
    expect(refused.body.msg).toMatch(/cannot be set on a pull queue/);
    const alerts = await mq.updateQueue(queue, { alerts: [{ type: 'fixed', trigger: 1, queue: 'x' }] });
    expect(alerts.status).toBe(400);
  });

  it('subscribers: add (updating by name), replace, remove', async () => {
    const queue = uniqueQueue('subscribers');
    await mq.createQueue(queue, { push: { subscribers: [subscriber('a'), subscriber('b')] } });
    const path = mq.path(queue, '/subscribers');
    const added = await mq.http.post(path, {
      subscribers: [{ name: 'b', url: 'http://127.0.0.1:9/b2' }, subscriber('c')],
    });
    expect(added.body).toEqual({ msg: 'Updated' });
    expect((await mq.info(queue)).push.subscribers).toEqual([
      subscriber('a'),
      { name: 'b', url: 'http://127.0.0.1:9/b2' },
      subscriber('c'),
    ]);
    expect((await mq.http.put(path, { subscribers: [subscriber('z')] })).body).toEqual({ msg: 'Updated' });
    expect((await mq.info(queue)).push.subscribers).toEqual([subscriber('z')]);
    await mq.http.post(path, { subscribers: [subscriber('y')] });
    expect((await mq.http.delete(path, { subscribers: [{ name: 'z' }] })).body).toEqual({ msg: 'Updated' });
    expect((await mq.info(queue)).push.subscribers).toEqual([subscriber('y')]);
    const lastOne = await mq.http.delete(path, { subscribers: [{ name: 'y' }] });
    expect(lastOne.status).toBe(400);
    expect(lastOne.body.msg).toMatch(/at least one subscriber/);
  });

  it('subscribers: pull queues, missing queues and bad lists are refused', async () => {
    const pull = uniqueQueue('pull-subscribers');
    await mq.createQueue(pull);
    const onPull = await mq.http.post(mq.path(pull, '/subscribers'), { subscribers: [subscriber('a')] });
    expect(onPull.status).toBe(400);
    expect(onPull.body.msg).toMatch(/push queue/);
    const missing = await mq.http.post(mq.path(uniqueQueue('nope'), '/subscribers'), {
      subscribers: [subscriber('a')],
    });
    expect(missing.status).toBe(404);
    const absent = await mq.http.post(mq.path(pull, '/subscribers'), {});
    expect(absent.status).toBe(406);
    expect(absent.body.msg).toBe('subscribers is required');
    const notList = await mq.http.post(mq.path(pull, '/subscribers'), { subscribers: 'a' });
    expect(notList.status).toBe(400);
    expect(notList.body.msg).toBe('subscribers must be a list');
  });
});

describe('dead letter and alerts settings', () => {
  it('dead_letter: max_reservations defaults to 10, the named queue is created, removal with an empty queue_name', async () => {
    const queue = uniqueQueue('with-dl');
    const deadLetter = uniqueQueue('the-dl');
    const created = await mq.createQueue(queue, { dead_letter: { queue_name: deadLetter } });
    expect(created.body.queue.dead_letter).toEqual({ queue_name: deadLetter, max_reservations: 10 });
    expect(await mq.info(deadLetter)).toMatchObject({
      type: 'pull',
      size: 0,
      message_timeout: 60,
      message_expiration: 604800,
    });
    const changed = await mq.updateQueue(queue, { dead_letter: { queue_name: deadLetter, max_reservations: 3 } });
    expect(changed.body.queue.dead_letter).toEqual({ queue_name: deadLetter, max_reservations: 3 });
    const removed = await mq.createQueue(queue, { dead_letter: { queue_name: '' } });
    expect(removed.status).toBe(200);
    expect(removed.body.queue.dead_letter).toBeUndefined();
    expect((await mq.info(queue)).dead_letter).toBeUndefined();
    expect((await mq.http.get(mq.path(deadLetter))).status).toBe(200);
  });

  it('an existing dead letter queue is used as it is', async () => {
    const queue = uniqueQueue('src');
    const deadLetter = uniqueQueue('existing-dl');
    await mq.createQueue(deadLetter, { message_timeout: 300 });
    await mq.postBodies(deadLetter, 'already there');
    await mq.createQueue(queue, { dead_letter: { queue_name: deadLetter, max_reservations: 2 } });
    expect(await mq.info(deadLetter)).toMatchObject({ message_timeout: 300, size: 1 });
  });

  it('alerts are stored on pull queues and omitted when there are none', async () => {
    const queue = uniqueQueue('alerts');
    const alerts = [{ type: 'fixed', trigger: 100, direction: 'asc', queue: 'alerts-out', snooze: 60 }];
    const created = await mq.createQueue(queue, { alerts });
    // Each stored alert gets an id (the version 1 API deletes alerts by id).
    const stored = alerts.map((alert) => ({ ...alert, id: expect.stringMatching(/^[0-9a-f]{24}$/) }));
    expect(created.body.queue.alerts).toEqual(stored);
    expect((await mq.info(queue)).alerts).toEqual(stored);
    const cleared = await mq.updateQueue(queue, { alerts: [] });
    expect(cleared.body.queue.alerts).toBeUndefined();
  });
});

describe('list', () => {
  const project = 'list-project';
  let lister: MqClient;
  beforeAll(async () => {
    const created = await server.http.post('/1/projects', { name: 'lists', id: project });
    expect(created.status).toBe(201);
    lister = new MqClient(server.http, project);
    const names = Array.from({ length: 105 }, (_, i) => `q${String(i).padStart(3, '0')}`);
    await Promise.all([...names, 'alpha', 'beta', 'Zeta', 'beta-2'].map((name) => lister.createQueue(name)));
  });
  const list = async (query = '') => {
    const response = await lister.http.get(`/3/projects/${project}/queues${query}`);
    expect(response.status).toBe(200);
    return (response.body.queues as Array<{ name: string }>).map((queue) => queue.name);
  };

  it('alphabetical, 30 per page by default', async () => {
    const names = await list();
    expect(names).toHaveLength(30);
    expect(names.slice(0, 5)).toEqual(['Zeta', 'alpha', 'beta', 'beta-2', 'q000']);
  });

  it('per_page above 100 is clamped to 100; per_page below 1 is refused', async () => {
    expect(await list('?per_page=500')).toHaveLength(100);
    expect(await list('?per_page=3')).toEqual(['Zeta', 'alpha', 'beta']);
    const zero = await lister.http.get(`/3/projects/${project}/queues?per_page=0`);
    expect(zero.status).toBe(400);
    expect(zero.body.msg).toMatch(/per_page/);
    expect((await lister.http.get(`/3/projects/${project}/queues?per_page=many`)).status).toBe(400);
  });

  it('previous continues after the named queue, whether or not it exists', async () => {
    expect(await list('?previous=beta&per_page=2')).toEqual(['beta-2', 'q000']);
    expect(await list('?previous=b&per_page=2')).toEqual(['beta', 'beta-2']);
    expect(await list('?previous=q104')).toEqual([]);
  });

  it('prefix restricts to names starting with it, combined with previous', async () => {
    expect(await list('?prefix=beta')).toEqual(['beta', 'beta-2']);
    expect(await list('?prefix=q10')).toEqual(['q100', 'q101', 'q102', 'q103', 'q104']);
    expect(await list('?prefix=q10&previous=q102')).toEqual(['q103', 'q104']);
    expect(await list('?prefix=nothing')).toEqual([]);
  });

  it('walks every queue page by page', async () => {
    const seen: string[] = [];
    let previous = '';
    for (;;) {
      const page = await list(`?per_page=40${previous ? `&previous=${previous}` : ''}`);
      if (page.length === 0) break;
      seen.push(...page);
      previous = page[page.length - 1]!;
    }
    expect(seen).toHaveLength(109);
    expect([...seen].sort()).toEqual(seen);
  });

  it('deleted queues leave the list; projects do not see each other', async () => {
    await lister.http.delete(lister.path('alpha'));
    expect(await list('?per_page=3')).toEqual(['Zeta', 'beta', 'beta-2']);
    const mine = await server.http.get(`/3/projects/${server.projectId}/queues?prefix=q0`);
    expect(mine.body.queues).toEqual([]);
  });
});

describe('authentication', () => {
  it('missing or invalid token: 401; earlier-generation token: 401', async () => {
    const path = mq.path('auth-queue');
    expect((await server.http.get(path, { token: null })).status).toBe(401);
    expect((await server.http.get(path, { token: 'nonsense' })).status).toBe(401);
    const v2 = await server.http.post('/1/tokens', { type: 'v2', name: 'old' });
    const refused = await server.http.get(path, { token: v2.body.token });
    expect(refused.status).toBe(401);
    expect(refused.body.msg).toMatch(/earlier API generation/);
  });

  it('unknown project: 404; a project of someone else: 403', async () => {
    expect((await server.http.get('/3/projects/unknown-project/queues')).status).toBe(404);
    const user = await server.http.post('/1/users', { email: 'stranger@example.com', password: 'stranger-password' });
    const token = await server.http.post('/1/tokens', { user_id: user.body.id });
    const response = await server.http.get(`/3/projects/${server.projectId}/queues`, { token: token.body.token });
    expect(response.status).toBe(403);
  });

  it('wrong method: 405', async () => {
    const response = await server.http.post(`/3/projects/${server.projectId}/queues`, {});
    expect(response.status).toBe(405);
  });
});
