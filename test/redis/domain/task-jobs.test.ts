import { readFileSync } from 'node:fs';
import { Queue, Worker } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newObjectId } from '../../../src/core/ids.js';
import type { RedisClient } from '../../../src/core/redis.js';
import { WorkerKeys } from '../../../src/worker/keys.js';
import { bullPriority, queueNameOf, TaskDistribution } from '../../../src/worker/tasks/queues/distribution.js';
import type { Task } from '../../../src/worker/types.js';
import { eventually } from '../../helpers/eventually.js';
import { useSharedRedis } from '../../helpers/shared-redis.js';

// TaskDistribution adds a request's due jobs with add-task-jobs.lua rather than BullMQ's addBulk:
// these tests hold it to writing what addBulk writes, key for key, and to jobs BullMQ runs.
const shared = useSharedRedis();
let distribution: TaskDistribution;
let ferrumPrefix: string;
const referencePrefix = () => shared.keys.of('reference');
const opened: Array<{ close(): Promise<void> }> = [];

function taskOf(priority: number, delay = 0, cluster = 'jobs'): Task {
  return { id: newObjectId(), project_id: 'p1', cluster, priority, delay, created_at: Date.now() } as Task;
}

function referenceQueue(cluster: string): Queue {
  const queue = new Queue(queueNameOf(cluster), { connection: shared.connect('reference'), prefix: referencePrefix() });
  opened.push(queue);
  return queue;
}

/** What BullMQ's addBulk is given for the same tasks (as TaskDistribution used to give it). */
function addByBullMq(queue: Queue, tasks: Task[], suffix = ''): Promise<unknown> {
  return queue.addBulk(
    tasks.map((task) => ({
      name: 'task',
      data: { project_id: task.project_id, task_id: task.id },
      opts: { jobId: `${task.id}${suffix}`, delay: task.delay * 1000, priority: bullPriority(task.priority) },
    })),
  );
}

/**
 * Every key under a queue's prefix, with what varies between two adds (times, stream ids) left
 * out; `eventsInAnyOrder` for adds that may interleave differently (due and delayed jobs).
 */
async function snapshot(
  redis: RedisClient,
  prefix: string,
  cluster: string,
  eventsInAnyOrder = false,
): Promise<Record<string, unknown>> {
  const base = `${prefix}:${queueNameOf(cluster)}:`;
  const found: Record<string, unknown> = {};
  for (const key of (await redis.keys(`${base}*`)).sort()) {
    const name = key.slice(base.length);
    const type = await redis.type(key);
    if (type === 'hash') {
      const fields: Record<string, unknown> = await redis.hgetall(key);
      // The queue's meta holds the BullMQ version only once a Queue object has opened it.
      delete fields.version;
      if (typeof fields.opts === 'string') fields.opts = JSON.parse(fields.opts);
      if (fields.timestamp !== undefined) fields.timestamp = 'set';
      found[name] = fields;
    } else if (type === 'zset') {
      const entries = await redis.zrange(key, 0, -1, 'WITHSCORES');
      // Delayed scores hold the due time: their order is what must match.
      found[name] = name === 'delayed' || name === 'marker' ? entries.filter((_, i) => i % 2 === 0) : entries;
    } else if (type === 'stream') {
      const events = (await redis.xrange(key, '-', '+')).map(([, fields]) =>
        fields.map((value, i) => (fields[i - 1] === 'delay' ? 'set' : value)),
      );
      found[name] = eventsInAnyOrder ? events.map((fields) => fields.join(' ')).sort() : events;
    } else {
      found[name] = await redis.get(key);
    }
  }
  return found;
}

beforeAll(() => {
  const keys = new WorkerKeys(shared.keys);
  ferrumPrefix = keys.bullPrefix();
  distribution = new TaskDistribution(shared.redis, keys);
  opened.push(distribution);
});
afterAll(async () => {
  for (const item of opened.reverse()) await item.close();
});

function versionIn(path: string, read: (json: Record<string, any>) => unknown): unknown {
  return read(JSON.parse(readFileSync(new URL(`../../../${path}`, import.meta.url), 'utf8')));
}

describe('adding the jobs of queued tasks', () => {
  it('runs against the one BullMQ version pinned in package.json, whose layout these tests compare', () => {
    const installed = versionIn('node_modules/bullmq/package.json', (json) => json.version);
    expect(versionIn('package.json', (json) => json.dependencies.bullmq)).toBe(installed);
    expect(versionIn('package-lock.json', (json) => json.packages['node_modules/bullmq'].version)).toBe(installed);
  });

  it('writes what BullMQ addBulk writes: job hashes, priority order, counters, events and marker', async () => {
    const tasks = [taskOf(0), taskOf(2), taskOf(1), taskOf(2), taskOf(0)];
    await distribution.add(tasks);
    await addByBullMq(referenceQueue('jobs'), tasks);
    const ours = await snapshot(shared.redis, ferrumPrefix, 'jobs');
    expect(Object.keys(ours)).toEqual(expect.arrayContaining(['prioritized', 'pc', 'marker', 'events', tasks[0]!.id]));
    expect(ours).toEqual(await snapshot(shared.redis, referencePrefix(), 'jobs'));
  });

  it('leaves a job that exists as it is, with the duplicated event, as BullMQ does', async () => {
    const tasks = [taskOf(1, 0, 'twice'), taskOf(1, 0, 'twice')];
    const reference = referenceQueue('twice');
    await distribution.add([tasks[0]!]);
    await addByBullMq(reference, [tasks[0]!]);
    await distribution.add(tasks);
    await addByBullMq(reference, tasks);
    expect(await snapshot(shared.redis, ferrumPrefix, 'twice')).toEqual(
      await snapshot(shared.redis, referencePrefix(), 'twice'),
    );
  });

  it('adds no marker to a paused queue, as BullMQ does', async () => {
    const reference = referenceQueue('paused');
    const ours = new Queue(queueNameOf('paused'), { connection: shared.redis, prefix: ferrumPrefix });
    opened.push(ours);
    await Promise.all([ours.pause(), reference.pause()]);
    const tasks = [taskOf(1, 0, 'paused'), taskOf(0, 0, 'paused')];
    await distribution.add(tasks);
    await addByBullMq(reference, tasks);
    const snap = await snapshot(shared.redis, ferrumPrefix, 'paused');
    expect(snap.marker).toBeUndefined();
    expect(snap).toEqual(await snapshot(shared.redis, referencePrefix(), 'paused'));
  });

  it('sends delayed tasks through BullMQ itself, beside due ones, and job ids take the given suffix', async () => {
    const tasks = [taskOf(1, 60, 'mixed'), taskOf(1, 0, 'mixed')];
    await distribution.add(tasks, '-again');
    await addByBullMq(referenceQueue('mixed'), tasks, '-again');
    const ours = await snapshot(shared.redis, ferrumPrefix, 'mixed', true);
    expect(ours.delayed).toEqual([`${tasks[0]!.id}-again`]);
    expect(ours.prioritized).toEqual([`${tasks[1]!.id}-again`, expect.any(String)]);
    expect(ours).toEqual(await snapshot(shared.redis, referencePrefix(), 'mixed', true));
  });

  it('gives a BullMQ Worker jobs it runs by priority, then in the order they were queued', async () => {
    const tasks = [taskOf(0, 0, 'run'), taskOf(2, 0, 'run'), taskOf(1, 0, 'run'), taskOf(2, 0, 'run')];
    await distribution.add(tasks);
    const ran: string[] = [];
    const worker = new Worker(
      queueNameOf('run'),
      async (job) => {
        ran.push((job.data as { task_id: string }).task_id);
      },
      { connection: { url: shared.url, maxRetriesPerRequest: null }, prefix: ferrumPrefix, concurrency: 1 },
    );
    opened.push(worker);
    await eventually(() => ran.length === 4, 10_000, 'four jobs run');
    expect(ran).toEqual([tasks[1]!.id, tasks[3]!.id, tasks[2]!.id, tasks[0]!.id]);
  });
});
