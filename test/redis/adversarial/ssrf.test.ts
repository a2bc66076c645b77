import { beforeAll, describe, expect, it } from 'vitest';
import { useTenant } from '../../helpers/adversarial/tenant-data.js';
import {
  useHardenedServer,
  createTenant,
  expectHealthy,
  plantVictimData,
} from '../../helpers/adversarial/hardened-server.js';
import { useBeforeAll } from '../../helpers/test-file.js';
import { OutboundGuard } from '../../../src/core/outbound-guard.js';
import { PushHttpClient } from '../../../src/mq/push/http-delivery.js';
import { MqClient, uniqueQueue } from '../../helpers/mq.js';
import { eventually } from '../../helpers/eventually.js';
import { TestSubscriber } from '../../helpers/push-subscriber.js';
import { scaled } from '../../helpers/pace.js';

// A tenant points push subscribers at the inside: this machine's loopback (where Redis and the
// API listen), the cloud metadata address, private networks. Nothing is delivered there.

const server = useHardenedServer({ FERRUM_MQ_PUSH_TIMEOUT_MS: String(scaled(1000)) });
const attacker = useTenant(server, 'ssrf-attacker');
const inside = useBeforeAll(
  () => TestSubscriber.start(),
  (subscriber) => subscriber.stop(),
);
let victimIntact: () => Promise<void>;

beforeAll(async () => {
  victimIntact = await plantVictimData(await createTenant(server, 'ssrf-victim'));
});

async function pushStatus(mq: MqClient, queue: string, id: string) {
  const response = await mq.http.get(mq.path(queue, `/messages/${id}/subscribers`));
  return response.body.subscribers as Array<{ status_code?: number; error?: string; msg?: string }>;
}

describe('push subscribers on internal addresses', () => {
  const port = () => new URL(inside.url).port;
  const targets = () => [
    `http://127.0.0.1:${port()}/push`,
    `http://localhost:${port()}/push`,
    `http://[::ffff:127.0.0.1]:${port()}/push`,
    `http://[::1]:${port()}/push`,
    'http://169.254.169.254/latest/meta-data/',
    'http://10.1.2.3/',
  ];

  it('never delivers to them; the push status says why', async () => {
    const mq = new MqClient(attacker.http, attacker.projectId);
    for (const url of targets()) {
      const queue = uniqueQueue('ssrf');
      const created = await mq.createQueue(queue, {
        type: 'unicast',
        push: { subscribers: [{ name: 'inside', url }], retries: 0, retries_delay: 0 },
      });
      expect(created.status).toBe(200);
      const [id] = await mq.postBodies(queue, 'probe');
      const status = await eventually(async () => {
        const subscribers = await pushStatus(mq, queue, id!);
        const text = JSON.stringify(subscribers);
        return /internal address/.test(text) ? text : undefined;
      }, 15_000);
      expect(status).toMatch(/FERRUM_OUTBOUND_ALLOW/);
    }
    expect(inside.received).toHaveLength(0);
    await expectHealthy(server);
    await victimIntact();
  });

  it('refuses framing headers (Host, Connection, Transfer-Encoding, Content-Length) in any case with 400', async () => {
    const mq = new MqClient(attacker.http, attacker.projectId);
    const queue = uniqueQueue('headers');
    for (const name of ['Host', 'connection', 'TRANSFER-ENCODING', 'Content-Length']) {
      const onSubscriber = await mq.createQueue(queue, {
        type: 'unicast',
        push: { subscribers: [{ name: 's', url: 'https://example.com/', headers: { [name]: 'x' } }] },
      });
      expect(onSubscriber.status).toBe(400);
      expect(onSubscriber.body.msg).toContain(name);
      const onMessage = await mq.http.post(mq.path(queue, '/messages'), {
        messages: [{ body: 'x', push_headers: { [name]: 'x' } }],
      });
      expect(onMessage.status).toBe(400);
    }
    await expectHealthy(server);
  });
});

describe('the outbound guard', () => {
  it('classifies addresses, IPv4-mapped and NAT64 forms included', () => {
    const guard = new OutboundGuard([]);
    for (const address of [
      '127.0.0.1',
      '10.0.0.1',
      '172.16.5.4',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '::1',
      '::',
      'fe80::1',
      'fd00::1',
      '::ffff:127.0.0.1',
      '::ffff:a9fe:a9fe',
      '64:ff9b::a9fe:a9fe',
    ])
      expect(guard.refusalOf(address), address).toMatch(/internal address/);
    for (const address of ['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946', '::ffff:93.184.216.34'])
      expect(guard.refusalOf(address), address).toBeNull();
  });

  it('opens CIDRs, single addresses and host names named by the operator', () => {
    const guard = new OutboundGuard(['10.20.0.0/16', 'fd12::7', 'hooks.internal']);
    expect(guard.refusalOf('10.20.3.4')).toBeNull();
    expect(guard.refusalOf('10.21.3.4')).toMatch(/internal/);
    expect(guard.refusalOf('fd12::7')).toBeNull();
    expect(guard.refusalOf('fd12::8')).toMatch(/internal/);
    expect(guard.refusalOf('127.0.0.1', 'hooks.internal')).toBeNull();
    expect(() => new OutboundGuard(['10.0.0.0/40'])).toThrow(/prefix/);
  });

  it('checks the address a name resolves to when connecting, and the allow-list opens it', async () => {
    const url = inside.url.replace('127.0.0.1', 'localhost');
    const before = inside.received.length;
    const closed = new PushHttpClient(2000, 2, new OutboundGuard([]));
    const refused = await closed.post(url, 'x', {});
    expect(refused.statusCode).toBe(0);
    expect(refused.error).toMatch(/localhost \((127\.0\.0\.1|::1)\) is an internal address/);
    await closed.close();
    const open = new PushHttpClient(2000, 2, new OutboundGuard(['localhost']));
    expect((await open.post(url, 'x', {})).statusCode).toBe(200);
    await open.close();
    expect(inside.received.length).toBe(before + 1);
  });
});
