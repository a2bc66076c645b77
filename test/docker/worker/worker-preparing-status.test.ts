import { beforeAll, describe, expect, it, vi } from 'vitest';
import { TaskStatusChanges } from '../../../src/worker/tasks/records/task-status.js';
import { deadlineAfter } from '../../helpers/pace.js';
import { RUNNER_MODES } from '../../helpers/worker.js';
import { useRunner, workerTestFile } from '../../helpers/worker-test-file.js';

// The official PHP client's wait: it polls the task right after posting it, waits while the
// task is queued or running, and reads the log at any other status. A task whose image is on
// the engine is never `preparing` (that is the image download), so the log it reads is whole.
const { server, worker } = workerTestFile();

beforeAll(async () => {
  await worker.upload({ name: 'local-image', image: 'ferrum-test/busybox', command: 'sh -c "$(cat $PAYLOAD_FILE)"' });
});

/** Every status the task is shown in, polled back to back from right after its post until it ends. */
async function statusesUntilEnd(taskId: string): Promise<string[]> {
  const seen: string[] = [];
  const deadline = deadlineAfter(30_000);
  for (;;) {
    const { status } = await worker.task(taskId);
    if (seen.at(-1) !== status) seen.push(status);
    if (status !== 'queued' && status !== 'running') return seen;
    if (deadline.passed()) throw new Error(`task ${taskId} still ${status} after ${deadline.boundMs} ms: ${seen}`);
  }
}

describe.each(RUNNER_MODES)('a task whose image is on the engine (%s runner)', (mode) => {
  useRunner(server, {}, { mode });

  it('is never shown preparing: queued until it runs, and its log is whole once it ends', async () => {
    const marks = vi.spyOn(TaskStatusChanges.prototype, 'markPulling');
    try {
      for (let i = 0; i < 3; i++) {
        const id = await worker.queue('local-image', `echo "run ${i}"`);
        const seen = await statusesUntilEnd(id);
        expect(seen, id).not.toContain('preparing');
        expect(seen.at(-1), id).toBe('complete');
        expect(await worker.log(id)).toBe(`run ${i}\n`);
      }
      // No pull, so no mark (the runner's pull step is the only caller).
      expect(marks).not.toHaveBeenCalled();
    } finally {
      marks.mockRestore();
    }
  });
});
