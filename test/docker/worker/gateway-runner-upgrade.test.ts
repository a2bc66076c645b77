import { afterAll, describe, expect, it } from 'vitest';
import { eventually } from '../../helpers/eventually.js';
import { signalAndWait, startFerrumProcess, type FerrumProcess } from '../../helpers/ferrum-process.js';
import { HttpClient } from '../../helpers/http.js';
import { scaled } from '../../helpers/pace.js';
import { startTestRedis } from '../../helpers/redis.js';
import { startSwitchRelay, type SwitchRelay } from '../../helpers/switch-relay.js';
import { builtRelease, previousReleases } from '../../helpers/releases.js';
import { FAST_WORKER_ENV, WorkerClient } from '../../helpers/worker.js';

/**
 * A gateway runner of a previous release (test/upgrade/releases.json) keeps running while the
 * controller it calls is upgraded mid-task, as a rolling upgrade does it behind a balancer (here a
 * TCP relay): this checkout's controller starts, the balancer sends new connections to it, the old
 * one drains and stops; the task the runner is running ends complete with every log line, in order.
 */

const LINES = 50;
/** Prints LINES numbered lines, one every 0.2 s: long enough to swap the controller in the middle. */
const SCRIPT = `for i in $(seq 1 ${LINES}); do echo "line $i"; sleep 0.2; done`;

/**
 * The worker's test settings, but the default heartbeat, lock and stalled check: a runner's hold
 * on its task outlives a controller's restart as it does in production (a minute), where the
 * fast test values would let it lapse while the new controller is still starting.
 */
const SETTINGS = Object.fromEntries(
  Object.entries(FAST_WORKER_ENV).filter(
    ([name]) =>
      !['FERRUM_RUNNER_HEARTBEAT_MS', 'FERRUM_RUNNER_LOCK_MS', 'FERRUM_RUNNER_STALLED_CHECK_MS'].includes(name),
  ),
);

describe.each(previousReleases())('a gateway runner of $name ($commit)', (release) => {
  const procs: FerrumProcess[] = [];
  let redis: Awaited<ReturnType<typeof startTestRedis>> | undefined;
  let balancer: SwitchRelay | undefined;

  afterAll(async () => {
    for (const proc of procs) await signalAndWait(proc, 'SIGKILL').catch(() => undefined);
    await balancer?.close();
    await redis?.stop();
  });

  it(
    `keeps all ${LINES} log lines of a task while its controller is upgraded mid-task`,
    async () => {
      const folder = builtRelease(release);
      redis = await startTestRedis();
      const env = { ...SETTINGS, REDIS_URL: redis.url, LOG_LEVEL: 'warn' };
      const oldController = await startFerrumProcess('controller', { release: folder, env });
      procs.push(oldController);
      balancer = await startSwitchRelay(oldController.port);
      const admin = new HttpClient(oldController.url, oldController.token!);
      const worker = new WorkerClient(admin, oldController.projectId!);
      await worker.upload({ name: 'lines', image: 'ferrum-test/busybox', command: 'sh -c "$(cat $PAYLOAD_FILE)"' });
      const token = await admin.post('/2/clusters/default/tokens');
      expect(token.status).toBe(200);
      const runner = await startFerrumProcess('runner', {
        release: folder,
        readyLine: /runner started/,
        env: {
          ...SETTINGS,
          FERRUM_ENCRYPTION_KEY: '',
          REDIS_URL: '',
          LOG_LEVEL: 'info',
          FERRUM_API_URL: balancer.url,
          FERRUM_RUNNER_TOKEN: token.body.token.token,
        },
      });
      procs.push(runner);

      const id = await worker.queue('lines', SCRIPT);
      await eventually(async () => (await worker.log(id)).includes('line 5\n'), 60_000, 'the task to print 5 lines');
      const newController = await startFerrumProcess('controller', { env });
      procs.push(newController);
      balancer.pointAt(newController.port);
      await signalAndWait(oldController, 'SIGTERM', 60_000);

      const current = new WorkerClient(
        new HttpClient(newController.url, oldController.token!),
        oldController.projectId!,
      );
      // The task runs about 10 s; a runner that cannot report to the new controller leaves it running.
      const task = await current
        .waitFor(id, ['complete', 'error', 'timeout', 'cancelled'], 60_000)
        .catch((error: Error) => {
          throw new Error(`${error.message}\nthe runner's last lines:\n${runner.lines.slice(-10).join('\n')}`);
        });
      const log = await current.log(id);
      const printed = log.split('\n').filter((line) => line !== '');
      console.log(
        `[gateway-runner-upgrade ${release.name}] status=${task.status} msg=${JSON.stringify(task.msg ?? '')} ` +
          `lines=${printed.length}/${LINES}`,
      );
      expect({ status: task.status, lines: printed }).toEqual({
        status: 'complete',
        lines: Array.from({ length: LINES }, (_, n) => `line ${n + 1}`),
      });
    },
    scaled(300_000),
  );
});
