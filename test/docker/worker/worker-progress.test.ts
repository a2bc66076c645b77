import { beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../../helpers/eventually.js';
import { onHostNetwork, useRunner, useRunnerOfItsOwn, workerTestFile } from '../../helpers/worker-test-file.js';
import { scaled } from '../../helpers/pace.js';

const { server, worker } = workerTestFile();
// Host network so the container reaches the API on loopback.
const hostNetwork = () => onHostNetwork(server);
useRunner(server, hostNetwork);
// The same from a gateway runner (no Redis: its task tokens come through the runner API).
const gateway = useRunnerOfItsOwn(server, 'progress-gateway', hostNetwork, { mode: 'gateway' });

// From inside the container: report progress with its own token, then read its own task.
const reportingScript = [
  'echo "token=$FERRUM_TASK_TOKEN"',
  `wget -q -O- --header "Authorization: OAuth $FERRUM_TASK_TOKEN" --header "Content-Type: application/json" --post-data '{"percent":40,"msg":"almost"}' "$FERRUM_API_URL/2/projects/$IRON_PROJECT_ID/tasks/$TASK_ID/progress"`,
  'echo',
  'wget -q -O- --header "Authorization: OAuth $IRON_TOKEN" "$IRON_PROTOCOL://$IRON_HOST:$IRON_PORT/2/projects/$IRON_PROJECT_ID/tasks/$TASK_ID"',
  'echo',
  'sleep 4',
].join('\n');

beforeAll(async () => {
  await worker.upload({ name: 'reporter', image: 'ferrum-test/busybox', command: 'sh -c "$(cat $PAYLOAD_FILE)"' });
}, scaled(30000));

async function logWhen(id: string, test: (log: string) => boolean): Promise<string> {
  return eventually(
    async () => {
      const log = await worker.log(id);
      return test(log) ? log : undefined;
    },
    20000,
    `the log of ${id} matching`,
  );
}

describe('task progress', () => {
  it(
    'a running task reports progress and reads tasks of its project with its task token, nothing else',
    async () => {
      const other = await worker.queue('reporter', 'echo', { delay: 3600 });
      const id = await worker.queue('reporter', reportingScript);
      const log = await logWhen(id, (text) => text.includes(`"id":"${id}"`));
      expect(log).toContain('{"msg":"Progress set"}');
      expect(await worker.task(id)).toMatchObject({ status: 'running', percent: 40, msg: 'almost' });
      const token = /token=(\S+)/.exec(log)![1]!;
      const as = { token };

      expect((await server.http.get(worker.path(`/tasks/${id}`), as)).status).toBe(200);
      expect((await server.http.post(worker.path(`/tasks/${id}/progress`), { percent: 60 }, as)).status).toBe(200);
      expect((await worker.task(id)).percent).toBe(60);
      expect((await server.http.get(worker.path(`/tasks/${other}`), as)).status).toBe(200);
      expect((await server.http.get(worker.path('/tasks'), as)).status).toBe(200);
      const othersProgress = await server.http.post(worker.path(`/tasks/${other}/progress`), { percent: 1 }, as);
      expect(othersProgress.status).toBe(403);
      expect(othersProgress.body.msg).toBe('A task token reports progress only for its own task');
      for (const refused of [await server.http.get('/1/users', as), await server.http.get('/2/clusters', as)]) {
        expect(refused.status).toBe(403);
        expect(refused.body.msg).toContain("A task token is valid only for its own project's queues, caches");
      }
      expect((await server.http.get(`/2/projects/000000000000000000000000/tasks/${id}`, as)).status).toBe(404);

      await worker.waitFor(id, ['complete', 'error']);
      const after = await server.http.get(worker.path(`/tasks/${id}`), as);
      expect(after.status).toBe(401);
      await server.http.post(worker.path(`/tasks/${other}/cancel`));
    },
    scaled(40000),
  );

  it(
    'works the same from a task of a gateway runner',
    async () => {
      const id = await worker.queue('reporter', reportingScript, { cluster: gateway.cluster });
      const log = await logWhen(id, (text) => text.includes(`"id":"${id}"`));
      expect(log).toContain('{"msg":"Progress set"}');
      expect(await worker.task(id)).toMatchObject({
        status: 'running',
        percent: 40,
        msg: 'almost',
        cluster: gateway.cluster,
      });
      const token = /token=(\S+)/.exec(log)![1]!;
      expect((await worker.waitFor(id, ['complete', 'error'])).status).toBe('complete');
      // Its token ended with the run.
      expect((await server.http.get(worker.path(`/tasks/${id}`), { token })).status).toBe(401);
    },
    scaled(40000),
  );

  it('refuses bad progress', async () => {
    const queued = await worker.queue('reporter', 'echo', { delay: 3600 });
    const cases: [unknown, number, string][] = [
      [{ percent: 101 }, 400, 'percent'],
      [{ percent: -1 }, 400, 'percent'],
      [{ percent: 'half' }, 400, 'percent'],
      [{ msg: 5 }, 400, 'msg'],
      [{}, 400, 'percent or msg is required'],
    ];
    for (const [body, status, msg] of cases) {
      const response = await server.http.post(worker.path(`/tasks/${queued}/progress`), body);
      expect(response.status, JSON.stringify(body)).toBe(status);
      expect(response.body.msg).toContain(msg);
    }
    const unknown = await server.http.post(worker.path('/tasks/000000000000000000000000/progress'), { percent: 1 });
    expect(unknown.status).toBe(404);
    await server.http.post(worker.path(`/tasks/${queued}/cancel`));
    const ended = await server.http.post(worker.path(`/tasks/${queued}/progress`), { percent: 10 });
    expect(ended.status).toBe(400);
    expect(ended.body.msg).toBe('Progress is for queued or running tasks: this one is cancelled');
  });
});
