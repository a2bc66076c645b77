import { beforeAll, describe, expect, it } from 'vitest';
import { RUNNER_MODES } from '../../helpers/worker.js';
import { useRunnerOfItsOwn, workerTestFile } from '../../helpers/worker-test-file.js';
import { scaled } from '../../helpers/pace.js';

const { server, worker } = workerTestFile();

beforeAll(async () => {
  await worker.upload({ name: 'ranked', image: 'ferrum-test/busybox', command: 'sh -c "$(cat $PAYLOAD_FILE)"' });
}, scaled(30000));

describe.each(RUNNER_MODES)('priorities (%s runner)', (mode) => {
  // One slot: tasks start one at a time, in the order the queue hands them out.
  const at = useRunnerOfItsOwn(server, `ranked-${mode}`, () => ({ FERRUM_RUNNER_SLOTS: '1' }), { mode });

  it(
    'starts a higher priority task queued later first; equal priorities in queue order',
    async () => {
      const blocker = await worker.queue('ranked', 'sleep 1', { cluster: at.cluster });
      await worker.waitFor(blocker, ['running']);
      const queued: [string, number][] = [
        ['low-1', 0],
        ['low-2', 0],
        ['high-1', 2],
        ['mid-1', 1],
        ['high-2', 2],
        ['mid-2', 1],
      ];
      const ids = new Map<string, string>();
      for (const [name, priority] of queued)
        ids.set(await worker.queue('ranked', `echo ${name}`, { priority, cluster: at.cluster }), name);
      const tasks = [];
      for (const id of ids.keys()) tasks.push(await worker.waitFor(id, ['complete', 'error'], 30000));
      const started = tasks
        .sort((a, b) => Date.parse(a.start_time) - Date.parse(b.start_time))
        .map((task) => ids.get(task.id));
      expect(started).toEqual(['high-1', 'high-2', 'mid-1', 'mid-2', 'low-1', 'low-2']);
    },
    scaled(40000),
  );
});
