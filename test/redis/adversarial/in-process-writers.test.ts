import { describe, expect, it } from 'vitest';
import { LIMITS } from '../../../src/mq/limits.js';
import { eventually } from '../../helpers/eventually.js';
import { MqClient, pushStatuses, settledPushStatuses } from '../../helpers/mq.js';
import { useTestServer } from '../../helpers/test-file.js';
import { scaled } from '../../helpers/pace.js';
import { expectHealthyAndIntact, newTenant, type Tenant, useVictim } from '../../helpers/adversarial/tenant-data.js';

// What Ferrum writes by itself (push copies through ironmq:///, alert messages, push error
// reports) goes through the same post as a tenant's request, under the same quotas, and every
// such message spends one hop of a bounded budget: no graph of queues, however it was built,
// loops forever.
const server = useTestServer();
const victim = useVictim(server);

/** A tenant whose project has `quotas` (set by the admin). */
async function tenantWith(
  name: string,
  quotas: Record<string, number> = {},
): Promise<{ tenant: Tenant; mq: MqClient }> {
  const tenant = await newTenant(server, name);
  if (Object.keys(quotas).length > 0) {
    const set = await server.http.patch(`/1/projects/${tenant.projectId}`, { quotas });
    expect(set.status, set.text).toBe(200);
  }
  return { tenant, mq: new MqClient(tenant.http, tenant.projectId) };
}

function pushTo(urls: string[], extra: Record<string, unknown> = {}) {
  return { type: 'multicast', push: { subscribers: urls.map((url, i) => ({ name: `s${i}`, url })), ...extra } };
}

async function metric(name: string, label: string): Promise<number> {
  const text = (await server.http.get('/metrics', { token: null })).text;
  const line = text.split('\n').find((row) => row.startsWith(`${name}{${label}}`));
  return line ? Number(line.split(' ').pop()) : 0;
}

/** Every queue's total_messages, once no message of the project is left anywhere. */
async function settledTotals(mq: MqClient, queues: string[]): Promise<number> {
  let totals = 0;
  await eventually(
    async () => {
      const infos = await Promise.all(queues.map((queue) => mq.info(queue).catch(() => null)));
      const busy = infos.some((info) => info && info.size > 0);
      totals = infos.reduce((sum, info) => sum + (info?.total_messages ?? 0), 0);
      return !busy;
    },
    scaled(30_000),
    'the chain to end',
  );
  return totals;
}

describe('in-process deliveries pass the quotas of a post', () => {
  it('ironmq:/// copies past queues, queue_bytes or stored_bytes are refused, each as that subscriber’s error', async () => {
    const { tenant, mq } = await tenantWith('fanout', { queues: 4, queue_bytes: 50_000, stored_bytes: 200_000 });
    const sinks = Array.from({ length: 6 }, () => 'ironmq:///sink');
    const fresh = Array.from({ length: 4 }, (_, i) => `ironmq:///new${i}`);
    expect((await mq.createQueue('sink')).status).toBe(200);
    const created = await mq.createQueue('fan', pushTo([...sinks, ...fresh], { retries: 0 }));
    expect(created.status, created.text).toBe(200);
    const [id] = await mq.postBodies('fan', 'x'.repeat(30_000));
    const statuses = await eventually(async () => {
      const list = await pushStatuses(mq, 'fan', id!);
      return list.every((entry) => entry.status === 'deleted' || entry.status === 'error') ? list : undefined;
    }, scaled(20_000));
    // One copy fits sink's 50,000 bytes; two of the four new queues fit the quota of four.
    expect((await mq.info('sink')).size).toBe(1);
    const queues = (await tenant.http.get(`/3/projects/${tenant.projectId}/queues?per_page=100`)).body.queues;
    expect(queues.length).toBeLessThanOrEqual(4);
    const refused = statuses.filter((entry) => entry.status === 'error');
    expect(refused.map((entry) => entry.status_code).sort()).toEqual([403, 403, 413, 413, 413, 413, 413]);
    expect(refused.find((entry) => entry.status_code === 403).error_message).toContain('queues');
    await expectHealthyAndIntact(server, victim);
  });

  it('racing creations with a quota of 2 make exactly 2 queues, caches and apps', async () => {
    const { tenant, mq } = await tenantWith('racer', { queues: 2, caches: 2, apps: 2 });
    const project = tenant.projectId;
    const appPrefix = `race${project.slice(-8)}`;
    const queueAnswers = await Promise.all(
      Array.from({ length: 30 }, (_, i) => (i % 2 === 0 ? createdStatus(mq, `q${i}`) : postTo(mq, `q${i}`))),
    );
    expect(queueAnswers.filter((status) => status === 403)).toHaveLength(28);
    expect((await tenant.http.get(`/3/projects/${project}/queues?per_page=100`)).body.queues).toHaveLength(2);
    const cacheAnswers = await Promise.all(
      Array.from({ length: 30 }, async (_, i) => {
        const put = await tenant.http.put(`/1/projects/${project}/caches/c${i}/items/k`, { value: 'v' });
        return put.status;
      }),
    );
    expect(cacheAnswers.filter((status) => status === 403)).toHaveLength(28);
    expect((await tenant.http.get(`/1/projects/${project}/caches`)).body).toHaveLength(2);
    const appAnswers = await Promise.all(
      Array.from({ length: 30 }, async (_, i) => {
        const created = await tenant.http.post('/v1/apps', { app: { name: `${appPrefix}-${i}`, project_id: project } });
        return created.status;
      }),
    );
    expect(appAnswers.filter((status) => status === 403)).toHaveLength(28);
    const apps = (await tenant.http.get('/v1/apps')).body.apps;
    expect(apps.filter((app: any) => app.name.startsWith(appPrefix))).toHaveLength(2);
  });

  it('racing route creations with a quota of 2 make exactly 2 routes, counted again once a route is deleted', async () => {
    const { tenant } = await tenantWith('router', { routes: 2 });
    const app = `routes${tenant.projectId.slice(-8)}`;
    const createRoute = (path: string) => routeCreated(tenant, app, path);
    const answers = await Promise.all(Array.from({ length: 30 }, (_, i) => createRoute(`/r${i}`)));
    expect(answers.filter((status) => status === 403)).toHaveLength(28);
    const listed = (await tenant.http.get(`/v1/apps/${app}/routes`)).body.routes;
    expect(listed).toHaveLength(2);
    expect(await createRoute('/late')).toBe(403);
    expect((await tenant.http.delete(`/v1/apps/${app}/routes${listed[0].path}`)).status).toBe(200);
    expect(await createRoute('/late')).toBe(200);
  });

  it('route_index off: routes are counted as before and no index is written; once on, the index is built from them', async () => {
    const { tenant } = await tenantWith('older', { routes: 2 });
    const app = `older${tenant.projectId.slice(-8)}`;
    const createRoute = (path: string) => routeCreated(tenant, app, path);
    const { features, functions } = server.running.ctx;
    const redis = server.openRedis();
    try {
      // As on a store an earlier release wrote: the flag is off.
      await redis.srem(features.store.keys.enabled(), 'route_index');
      await features.refresh();
      expect(await createRoute('/a')).toBe(200);
      expect(await createRoute('/b')).toBe(200);
      expect(await createRoute('/c')).toBe(403);
      expect((await tenant.http.delete(`/v1/apps/${app}/routes/a`)).status).toBe(200);
      expect(await redis.exists(functions.keys.projectRoutes(tenant.projectId))).toBe(0);
    } finally {
      await redis.sadd(features.store.keys.enabled(), 'route_index');
      await features.refresh();
      await redis.quit();
    }
    expect(features.enabled('route_index')).toBe(true);
    expect(await createRoute('/c')).toBe(200);
    expect(await createRoute('/d')).toBe(403);
  });
});

async function createdStatus(mq: MqClient, queue: string): Promise<number> {
  return (await mq.createQueue(queue)).status;
}

async function routeCreated(tenant: Tenant, app: string, path: string): Promise<number> {
  const url = `/v1/apps/${app}/routes?project_id=${tenant.projectId}`;
  return (await tenant.http.post(url, { route: { path, image: 'busybox' } })).status;
}

async function postTo(mq: MqClient, queue: string): Promise<number> {
  return (await mq.http.post(mq.path(queue, '/messages'), { messages: [{ body: 'hi' }] })).status;
}

describe('loops end after the hop budget', () => {
  it('two concurrent PUTs joining two queues: refused, or the message travels the budget and stops', async () => {
    const { mq } = await tenantWith('pingpong');
    const [a, b] = await Promise.all([
      mq.createQueue('ra', pushTo(['ironmq:///rb'])),
      mq.createQueue('rb', pushTo(['ironmq:///ra'])),
    ]);
    expect([a.status, b.status]).toContain(200);
    const exhausted = await metric('ferrum_mq_hop_budget_exhausted_total', 'by="push"');
    await mq.postBodies('ra', 'round and round');
    const totals = await settledTotals(mq, ['ra', 'rb']);
    if (a.status === 200 && b.status === 200) {
      // The client's message and one copy per hop of the budget.
      expect(totals).toBe(LIMITS.hopBudget + 1);
      expect(await metric('ferrum_mq_hop_budget_exhausted_total', 'by="push"')).toBe(exhausted + 1);
    } else {
      expect(totals).toBe(2);
    }
  });

  it('a chain of 103 queues closed on itself (longer than the loop search) ends, the drop visible to the owner', async () => {
    const { mq } = await tenantWith('chain');
    const names = Array.from({ length: 103 }, (_, i) => `c${i}`);
    // Built from the end, so that each save sees only what is downstream of it.
    for (let i = names.length - 1; i >= 0; i--) {
      const saved = await mq.createQueue(names[i]!, pushTo([`ironmq:///${names[(i + 1) % names.length]}`]));
      expect(saved.status, saved.text).toBe(200);
    }
    const exhausted = await metric('ferrum_mq_hop_budget_exhausted_total', 'by="push"');
    await mq.postBodies('c0', 'around the chain');
    expect(await settledTotals(mq, names)).toBe(LIMITS.hopBudget + 1);
    expect(await metric('ferrum_mq_hop_budget_exhausted_total', 'by="push"')).toBe(exhausted + 1);
    // The copy with no hop left reached the queue a budget away, and went no further.
    expect((await mq.info(names[LIMITS.hopBudget]!)).total_messages).toBe(1);
    expect((await mq.info(names[LIMITS.hopBudget + 1]!)).total_messages).toBe(0);
  });

  it('alerts posting to each other: the post answers at once and only one alert message appears', async () => {
    const { mq } = await tenantWith('alerts');
    const alertTo = (queue: string) => ({ alerts: [{ type: 'fixed', direction: 'asc', trigger: 1, queue }] });
    expect((await mq.createQueue('al1', alertTo('al2'))).status).toBe(200);
    expect((await mq.createQueue('al2', alertTo('al1'))).status).toBe(200);
    const started = Date.now();
    await mq.postBodies('al1', 'first');
    expect(Date.now() - started).toBeLessThan(scaled(2000));
    // The alert's message reached al2 in the post's step and fired nothing back.
    expect((await mq.info('al2')).size).toBe(1);
    expect((await mq.info('al1')).size).toBe(1);
    expect((await mq.info('al1')).total_messages).toBe(1);
  });
});

describe('error reports', () => {
  it('an error_queue naming its own queue is refused with 400', async () => {
    const { mq } = await tenantWith('selfreport');
    const saved = await mq.createQueue('er', pushTo(['ironworker:///none'], { error_queue: 'er' }));
    expect(saved.status).toBe(400);
    expect(saved.body.msg).toContain('error_queue');
  });

  it('a report embeds at most a bounded part of the failed message’s body', async () => {
    const { mq } = await tenantWith('bigreport');
    const saved = await mq.createQueue('big', pushTo(['ironworker:///missing'], { retries: 0, error_queue: 'bad' }));
    expect(saved.status, saved.text).toBe(200);
    const [id] = await mq.postBodies('big', 'y'.repeat(100_000));
    await settledPushStatuses(mq, 'big', id!, { s0: 'error' }, scaled(20_000));
    const [report] = await eventually(async () => {
      const found = await mq.peek('bad').catch(() => []);
      return found.length > 0 ? found : undefined;
    }, scaled(20_000));
    const parsed = JSON.parse(report.body);
    expect(parsed.source_msg_id).toBe(id);
    expect(parsed.body).toBe('y'.repeat(LIMITS.maxErrorReportBodyBytes));
    expect(parsed.body_truncated).toBe(true);
    expect(report.push_headers).toBeUndefined();
  });

  it('two queues reporting to each other stop after the hop budget', async () => {
    const { mq } = await tenantWith('reports');
    // e1 and e2 report to each other through error_queue; every delivery of both fails.
    expect((await mq.createQueue('e2', pushTo(['ironworker:///missing'], { retries: 0 }))).status).toBe(200);
    const e1 = await mq.createQueue('e1', pushTo(['ironworker:///missing'], { retries: 0, error_queue: 'e2' }));
    expect(e1.status, e1.text).toBe(200);
    expect((await mq.updateQueue('e2', { push: { error_queue: 'e1' } })).status).toBe(200);
    const exhausted = await metric('ferrum_mq_hop_budget_exhausted_total', 'by="error_report"');
    await mq.postBodies('e1', 'y'.repeat(20_000));
    await eventually(
      async () => (await metric('ferrum_mq_hop_budget_exhausted_total', 'by="error_report"')) > exhausted,
      scaled(30_000),
      'the reports to stop',
    );
    // The client's message and one report per hop of the budget.
    expect(await settledTotals(mq, ['e1', 'e2'])).toBe(LIMITS.hopBudget + 1);
  });
});

describe('subscribers per queue', () => {
  it(`are at most ${LIMITS.maxSubscribers}: 150 is refused with 400, ${LIMITS.maxSubscribers} accepted`, async () => {
    const { mq } = await tenantWith('wide');
    const urls = (count: number) => Array.from({ length: count }, (_, i) => `ironworker:///code${i}`);
    const refused = await mq.createQueue('wide', pushTo(urls(150)));
    expect(refused.status).toBe(400);
    expect(refused.body.msg).toContain(String(LIMITS.maxSubscribers));
    expect((await mq.createQueue('wide', pushTo(urls(LIMITS.maxSubscribers)))).status).toBe(200);
    const more = await mq.http.post(mq.path('wide', '/subscribers'), {
      subscribers: [{ name: 'one-more', url: 'ironworker:///extra' }],
    });
    expect(more.status).toBe(400);
  });
});
