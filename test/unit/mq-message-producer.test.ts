import { describe, expect, it } from 'vitest';
import { MessageProducer } from '../../src/mq/messages/message-producer.js';
import type { QueueQuotas } from '../../src/mq/queues/queue-quotas.js';
import type { QueueRef } from '../../src/mq/scripts.js';
import type { MqLogger } from '../../src/mq/types.js';

const QUOTAS: QueueQuotas = { queues: 10, queueBytes: 1000, storedBytes: 1000 };
const silent: MqLogger = { warn: () => {}, info: () => {} };

describe('MessageProducer', () => {
  it("reads a project's quotas once for a fan-out's copies that miss the cache together, and again after a failed read", async () => {
    let reads = 0;
    let fail = false;
    const posted: QueueRef[] = [];
    const producer = new MessageProducer(
      (ref) => {
        posted.push(ref);
        return Promise.resolve(['id']);
      },
      {
        quotasOf: () => {
          reads += 1;
          return fail ? Promise.reject(new Error('Redis away')) : Promise.resolve(QUOTAS);
        },
        metrics: null,
        log: silent,
      },
    );
    await Promise.all(
      Array.from({ length: 64 }, (_, i) => producer.postWithHops({ projectId: 'p', name: `sink${i}` }, 'b', 3, 'push')),
    );
    expect(reads).toBe(1);
    expect(posted).toHaveLength(64);
    fail = true;
    await expect(producer.postWithHops({ projectId: 'q', name: 'x' }, 'b', 3, 'push')).rejects.toThrow('Redis away');
    fail = false;
    await producer.postWithHops({ projectId: 'q', name: 'x' }, 'b', 3, 'push');
    expect(reads).toBe(3);
  });
});
