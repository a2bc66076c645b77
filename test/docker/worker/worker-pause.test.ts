import { describe, expect, it } from 'vitest';
import { RUNNER_MODES } from '../../helpers/worker.js';
import { scaled } from '../../helpers/pace.js';
import { useRunnerOfItsOwn, workerTestFile } from '../../helpers/worker-test-file.js';

const { server, worker } = workerTestFile();

const shell = 'sh -c "$(cat $PAYLOAD_FILE)"';
const ended = ['complete', 'error', 'timeout', 'cancelled'];

/**
 * A one-slot runner (tasks start one after another, so their start order is their release
 * order) for the tests of one describe block, on a cluster of its own; returns the cluster.
 */
const withRunner = (mode: (typeof RUNNER_MODES)[number], name: string) =>
  useRunnerOfItsOwn(server, name, () => ({ FERRUM_RUNNER_SLOTS: '1' }), { mode });

const action = (codeId: string, name: string) => server.http.post(worker.path(`/codes/${codeId}/${name}`));

describe.each(RUNNER_MODES)('pause and resume a task queue (%s runner)', (mode) => {
  const at = withRunner(mode, `pause-${mode}`);
  const name = (base: string) => `${base}-${mode}`;

  it(
    'starts nothing of a paused package, and on resume runs the waiting tasks in their order',
    async () => {
      const codeId = await worker.upload({ name: name('pausable'), image: 'ferrum-test/busybox', command: shell });
      const paused = await action(codeId, 'pause_task_queue');
      expect(paused.status).toBe(200);
      expect(paused.body).toEqual({ msg: 'Paused' });
      const ids = [];
      for (let i = 0; i < 4; i++) ids.push(await worker.queue(name('pausable'), `echo ${i}`, { cluster: at.cluster }));
      await worker.upload({ name: name('free'), image: 'ferrum-test/busybox', command: shell });
      const other = await worker.queue(name('free'), 'echo other', { cluster: at.cluster });
      // Another package is not held back; queued after the paused ones, it is also the witness
      // that the runner has passed over them.
      expect((await worker.waitFor(other, ended)).status).toBe('complete');
      for (const id of ids) expect((await worker.task(id)).status).toBe('queued');

      const resumed = await action(codeId, 'resume_task_queue');
      expect(resumed.body).toEqual({ msg: 'Resumed' });
      const tasks = [];
      for (const id of ids) tasks.push(await worker.waitFor(id, ended));
      expect(tasks.map((task) => task.status)).toEqual(['complete', 'complete', 'complete', 'complete']);
      const starts = tasks.map((task) => Date.parse(task.start_time));
      expect([...starts].sort((a, b) => a - b)).toEqual(starts);
      expect(await worker.log(ids[2]!)).toBe('2\n');
    },
    scaled(60000),
  );

  it(
    'runs a resumed task with the revision it was queued with, not one uploaded during the pause',
    async () => {
      const codeId = await worker.upload({
        name: name('pinned'),
        image: 'ferrum-test/busybox',
        command: "sh -c 'echo first revision'",
      });
      await action(codeId, 'pause_task_queue');
      const id = await worker.queue(name('pinned'), '', { cluster: at.cluster });
      expect(await worker.task(id)).toMatchObject({ status: 'queued', code_rev: '1' });
      await worker.upload({
        name: name('pinned'),
        image: 'ferrum-test/busybox',
        command: "sh -c 'echo second revision'",
      });
      await action(codeId, 'resume_task_queue');
      const task = await worker.waitFor(id, ended);
      expect(task).toMatchObject({ status: 'complete', code_rev: '1' });
      expect(await worker.log(id)).toBe('first revision\n');
      const later = await worker.queue(name('pinned'), '', { cluster: at.cluster });
      await worker.waitFor(later, ended);
      expect(await worker.log(later)).toBe('second revision\n');
    },
    scaled(30000),
  );
});

describe('cancel_all', () => {
  const at = withRunner('direct', 'crowd');
  it(
    'cancels every queued and running task of the package, and only of that package',
    async () => {
      const codeId = await worker.upload({ name: 'crowd', image: 'ferrum-test/busybox', command: shell });
      const running = await worker.queue('crowd', 'echo working; sleep 30', { cluster: at.cluster });
      await worker.waitFor(running, ['running']);
      const queued = [
        await worker.queue('crowd', 'echo later', { delay: 3600, cluster: at.cluster }),
        await worker.queue('crowd', 'echo later', { delay: 3600, cluster: at.cluster }),
      ];
      await worker.upload({ name: 'bystander', image: 'ferrum-test/busybox', command: shell });
      const bystander = await worker.queue('bystander', 'echo hi', { delay: 3600, cluster: at.cluster });

      const response = await action(codeId, 'cancel_all');
      expect(response.status).toBe(200);
      expect(response.body).toEqual({ msg: 'Cancelled 3 tasks' });
      for (const id of [running, ...queued]) expect((await worker.waitFor(id, ended)).status).toBe('cancelled');
      expect((await worker.task(bystander)).status).toBe('queued');
      expect((await action(codeId, 'cancel_all')).body).toEqual({ msg: 'Cancelled 0 tasks' });
    },
    scaled(30000),
  );

  it('answers 404 for an unknown package', async () => {
    for (const name of ['cancel_all', 'pause_task_queue', 'resume_task_queue']) {
      const response = await action('000000000000000000000000', name);
      expect(response.status).toBe(404);
      expect(response.body.msg).toBeTruthy();
    }
  });
});
