import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { WorkerServices } from '../../../src/worker/services.js';
import type { TestServer } from '../../helpers/server.js';
import { createCluster, startWorkerServer, WorkerClient } from '../../helpers/worker.js';
import { scaled } from '../../helpers/pace.js';

/** A task as the list shows it, with the fields the checks need. */
interface Listed {
  id: string;
  code_name: string;
  cluster: string;
  status: string;
  created_at: string;
}

const HOUR = 3600 * 1000;
const BATCHES = 10;
const PER_BATCH = 1000;

let server: TestServer;
let client: WorkerClient;
let worker: WorkerServices;
let startMs: number;
let east: string;
let west: string;
const queued: string[] = [];

/** Newest first: created_at descending, equal times by id descending. */
function newestFirst(a: Listed, b: Listed): number {
  return b.created_at.localeCompare(a.created_at) || b.id.localeCompare(a.id);
}

async function listAll(query: string): Promise<Listed[]> {
  const all: Listed[] = [];
  for (let page = 0; ; page++) {
    const response = await server.http.get(client.path(`/tasks?per_page=100&page=${page}${query}`));
    expect(response.status).toBe(200);
    const tasks = response.body.tasks as Listed[];
    all.push(...tasks);
    if (tasks.length < 100) return all;
  }
}

beforeAll(async () => {
  server = await startWorkerServer();
  client = new WorkerClient(server.http, server.projectId);
  worker = server.running.ctx.worker;
  // No runner runs in this file: every task stays as the test sets it.
  await client.upload({ name: 'alpha', image: 'ferrum-test/busybox' });
  await client.upload({ name: 'beta', image: 'ferrum-test/busybox' });
  east = await createCluster(server.http, 'east');
  west = await createCluster(server.http, 'west');
  // One batch an hour apart (the server runs in this process, so its clock moves too).
  startMs = Date.now() - BATCHES * HOUR;
  vi.useFakeTimers({ toFake: ['Date'] });
  try {
    for (let batch = 0; batch < BATCHES; batch++) {
      vi.setSystemTime(startMs + batch * HOUR);
      const tasks = Array.from({ length: PER_BATCH }, (_, i) => ({
        code_name: i % 3 === 0 ? 'beta' : 'alpha',
        cluster: i % 2 === 0 ? east : west,
        payload: `${batch}/${i}`,
      }));
      const response = await server.http.post(client.path('/tasks'), { tasks });
      expect(response.status).toBe(200);
      queued.push(...response.body.tasks.map((task: { id: string }) => task.id));
    }
  } finally {
    vi.useRealTimers();
  }
  // Some tasks change status, through the same compare-and-set the runners use.
  const target = (i: number) => (i % 7 === 0 ? 'complete' : i % 11 === 0 ? 'error' : null);
  await Promise.all(
    queued.map((id, i) => {
      const to = target(i);
      return to && worker.statuses.change(server.projectId, id, { from: ['queued'], to });
    }),
  );
}, scaled(120_000));

afterAll(async () => {
  await server?.stop();
});

describe('paging with 10,000 tasks', () => {
  let everything: Listed[];

  beforeAll(async () => {
    everything = await listAll('');
  });

  it('lists every task exactly once, newest first', () => {
    expect(everything).toHaveLength(BATCHES * PER_BATCH);
    expect(new Set(everything.map((task) => task.id))).toEqual(new Set(queued));
    expect(everything).toEqual([...everything].sort(newestFirst));
  });

  it('answers an empty page beyond the end', async () => {
    const response = await server.http.get(client.path('/tasks?per_page=100&page=100'));
    expect(response.status).toBe(200);
    expect(response.body.tasks).toEqual([]);
  });

  it('combines status flags, code, cluster and a time range', async () => {
    const from = Math.floor((startMs + 2 * HOUR) / 1000);
    const to = Math.floor((startMs + 6 * HOUR) / 1000) + 1;
    const inRange = (task: Listed) =>
      Date.parse(task.created_at) >= from * 1000 && Date.parse(task.created_at) <= to * 1000;
    const cases: [string, (task: Listed) => boolean][] = [
      ['&complete=1', (task) => task.status === 'complete'],
      [
        `&cluster=${east}&queued=1&error=1&to_time=${to}`,
        (task) =>
          task.cluster === east &&
          ['queued', 'error'].includes(task.status) &&
          Date.parse(task.created_at) <= to * 1000,
      ],
      [
        '&code_name=beta&complete=1&error=true',
        (task) => task.code_name === 'beta' && ['complete', 'error'].includes(task.status),
      ],
      [
        `&cluster=${east}&code_name=beta&queued=1`,
        (task) => task.cluster === east && task.code_name === 'beta' && task.status === 'queued',
      ],
      [
        `&code_name=alpha&complete=1&error=1&from_time=${from}&to_time=${to}`,
        (task) => task.code_name === 'alpha' && ['complete', 'error'].includes(task.status) && inRange(task),
      ],
      [
        `&cluster=${west}&code_name=beta&from_time=${from}`,
        (task) => task.cluster === west && task.code_name === 'beta' && Date.parse(task.created_at) >= from * 1000,
      ],
      [
        `&code_name=beta&from_time=${from}&to_time=${to}&queued=1&preparing=1&running=1&complete=1&error=1&cancelled=1&timeout=1`,
        (task) => task.code_name === 'beta' && inRange(task),
      ],
    ];
    for (const [query, wanted] of cases) {
      const expected = everything.filter(wanted);
      expect(expected.length, query).toBeGreaterThan(0);
      expect(await listAll(query), query).toEqual(expected);
    }
  });

  it('pages of other sizes tile the same order', async () => {
    const query = '&code_name=alpha&queued=1&complete=1';
    const expected = everything.filter(
      (task) => task.code_name === 'alpha' && ['queued', 'complete'].includes(task.status),
    );
    const response = await server.http.get(client.path(`/tasks?per_page=37&page=41${query}`));
    expect(response.body.tasks).toEqual(expected.slice(41 * 37, 42 * 37));
  });

  it('answers nothing for a code name or cluster without tasks', async () => {
    expect((await server.http.get(client.path('/tasks?code_name=nobody&complete=1&queued=1'))).body.tasks).toEqual([]);
    expect((await server.http.get(client.path('/tasks?cluster=nowhere'))).body.tasks).toEqual([]);
  });
});
