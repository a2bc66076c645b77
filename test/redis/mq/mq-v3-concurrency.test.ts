import { describe, expect, it } from 'vitest';
import { useMqClient, uniqueQueue } from '../../helpers/mq.js';
import { useTestServer } from '../../helpers/test-file.js';
import { scaled } from '../../helpers/pace.js';

const server = useTestServer();
const mq = useMqClient(server);
describe('concurrency', () => {
  it(
    '20 consumers drain 10,000 messages from 5 producers: each message delivered exactly once',
    async () => {
      const queue = uniqueQueue('drain');
      await mq.createQueue(queue);
      const total = 10_000;
      const producers = 5;
      const posted: string[] = [];
      let producing = true;

      const produce = async (producer: number) => {
        for (let batch = 0; batch < total / producers / 100; batch++) {
          const ids = await mq.post(
            queue,
            Array.from({ length: 100 }, (_, i) => ({ body: `p${producer}-b${batch}-m${i}` })),
          );
          posted.push(...ids);
        }
      };
      const deliveries = new Map<string, number>();
      const consume = async (consumer: number) => {
        for (;;) {
          const messages = await mq.reserve(queue, { n: 1 + (consumer % 10) * 5, wait: producing ? 1 : 0 });
          if (messages.length === 0) {
            if (!producing) return;
            continue;
          }
          for (const message of messages) deliveries.set(message.id, (deliveries.get(message.id) ?? 0) + 1);
          const response = await mq.http.delete(mq.path(queue, '/messages'), {
            ids: messages.map((message) => ({ id: message.id, reservation_id: message.reservation_id })),
          });
          expect(response.status).toBe(200);
        }
      };

      const consumers = Array.from({ length: 20 }, (_, i) => consume(i));
      await Promise.all(Array.from({ length: producers }, (_, i) => produce(i)));
      producing = false;
      await Promise.all(consumers);

      expect(posted).toHaveLength(total);
      expect(new Set(posted).size).toBe(total);
      expect(deliveries.size).toBe(total);
      expect([...deliveries.values()].every((count) => count === 1)).toBe(true);
      expect(posted.every((id) => deliveries.has(id))).toBe(true);
      expect(await mq.info(queue)).toMatchObject({ size: 0, total_messages: total });
    },
    scaled(60_000),
  );

  it('concurrent reserves never hand out the same message under a live reservation', async () => {
    const queue = uniqueQueue('contention');
    await mq.post(
      queue,
      Array.from({ length: 500 }, (_, i) => ({ body: `m${i}` })),
    );
    const batches = await Promise.all(Array.from({ length: 60 }, () => mq.reserve(queue, { n: 10, timeout: 60 })));
    const ids = batches.flat().map((message) => message.id);
    expect(ids).toHaveLength(500);
    expect(new Set(ids).size).toBe(500);
    expect((await mq.info(queue)).size).toBe(500);
  });

  it('concurrent single deletes and batch deletes of the same messages: each deleted exactly once', async () => {
    const queue = uniqueQueue('double-delete');
    const ids = await mq.post(
      queue,
      Array.from({ length: 50 }, (_, i) => ({ body: `m${i}` })),
    );
    const results = await Promise.all(ids.flatMap((id) => [mq.delete(queue, id), mq.delete(queue, id)]));
    const statuses = results.map((response) => response.status);
    expect(statuses.filter((status) => status === 200)).toHaveLength(50);
    expect(statuses.filter((status) => status === 404)).toHaveLength(50);
    expect((await mq.info(queue)).size).toBe(0);
  });
});
