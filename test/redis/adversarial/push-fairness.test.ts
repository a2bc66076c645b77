import { afterAll, expect, it } from 'vitest';
import { useTestServer } from '../../helpers/test-file.js';
import { TestSubscriber } from '../../helpers/push-subscriber.js';
import { useTenant, type Tenant } from '../../helpers/adversarial/tenant-data.js';
import { scaled } from '../../helpers/pace.js';

// A tenant whose subscribers hang cannot take every delivery slot of the push deliverer: the
// slots are shared between projects, so another tenant's delivery still goes out at once.
const TIMEOUT_MS = 20_000;
const server = useTestServer({
  FERRUM_MQ_PUSH_CONCURRENCY: '4',
  FERRUM_MQ_PUSH_QUEUE_CONCURRENCY: '2',
  FERRUM_MQ_PUSH_TIMEOUT_MS: String(TIMEOUT_MS),
});
const victim = useTenant(server, 'victim');
const hostile = useTenant(server, 'hostile');
const subscribers: TestSubscriber[] = [];

afterAll(async () => {
  await Promise.all(subscribers.map((subscriber) => subscriber.stop()));
});

async function pushQueue(tenant: Tenant, name: string, url: string): Promise<string> {
  const path = `/3/projects/${tenant.projectId}/queues/${name}`;
  const created = await tenant.http.put(path, {
    queue: { type: 'multicast', push: { subscribers: [{ name: 's', url }], retries: 0 } },
  });
  expect(created.status, created.text).toBe(200);
  return `${path}/messages`;
}

it(
  "keeps a slot for another project while one project's subscribers hang",
  async () => {
    const hanging = await TestSubscriber.start(() => 'hang');
    const fast = await TestSubscriber.start();
    subscribers.push(hanging, fast);
    // Three queues of two slots each: without fairness they would hold all four.
    for (const name of ['slow-1', 'slow-2', 'slow-3']) {
      const messages = await pushQueue(hostile, name, hanging.url);
      const posted = await hostile.http.post(messages, { messages: [1, 2, 3].map((i) => ({ body: `${name}-${i}` })) });
      expect(posted.status).toBe(201);
    }
    await hanging.waitFor(2);
    const victimMessages = await pushQueue(victim, 'fast', fast.url);
    const posted = Date.now();
    expect((await victim.http.post(victimMessages, { messages: [{ body: 'on time' }] })).status).toBe(201);
    const [received] = await fast.waitFor(1, TIMEOUT_MS / 2);
    expect(received!.body).toBe('on time');
    expect(received!.at - posted).toBeLessThan(TIMEOUT_MS / 2);
  },
  scaled(60_000),
);
