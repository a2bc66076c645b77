import { beforeAll, describe, expect, it } from 'vitest';
import Docker from 'dockerode';
import { createCluster, createRunnerToken, RUNNER_MODES, startRunner, zipOf } from '../../helpers/worker.js';
import { useRunner, workerTestFile } from '../../helpers/worker-test-file.js';
import { eventually } from '../../helpers/eventually.js';
import { boundFrom, scaled, timed } from '../../helpers/pace.js';

const { server, worker } = workerTestFile();

beforeAll(async () => {
  await worker.upload({
    name: 'echo',
    image: 'ferrum-test/task-echo',
    config: 'color: blue',
    env_vars: { GREETING: 'hello there', MODE: 'test' },
  });
  await worker.upload({ name: 'shell', image: 'ferrum-test/busybox', command: 'sh -c "$(cat $PAYLOAD_FILE)"' });
  await worker.upload({
    name: 'cat',
    image: 'ferrum-test/busybox',
    command: `sh -c 'cat $PAYLOAD_FILE; echo "|$(cat $CONFIG_FILE)|$(env | grep -c FERRUM_TASK_FILE)|$(stat -c %a $TASK_DIR)"'`,
    config: 'c: "1"',
  });
});

// The same behaviour whether the runner reaches Redis itself or only the runner API.
describe.each(RUNNER_MODES)('a task runs in a container (%s runner)', (mode) => {
  const runner = useRunner(server, {}, { mode });
  /** Tasks go only to clusters that exist: one per test that runs a runner of its own. */
  const clusters = { small_logs: '', short_drain: '', no_docker: '' };
  beforeAll(async () => {
    for (const name of Object.keys(clusters) as (keyof typeof clusters)[])
      clusters[name] = await createCluster(server.http, `${name}-${mode}`);
  });

  it('runs as a runner of its mode', () => {
    expect(runner.mode).toBe(mode);
  });

  it('gets its payload, config and task variables, and completes', async () => {
    const id = await worker.queue('echo', '{"name":"ferrum"}');
    const task = await worker.waitFor(id, ['complete', 'error']);
    expect(task.status).toBe('complete');
    const log = await worker.log(id);
    expect(log).toContain('payload: {"name":"ferrum"}');
    expect(log).toContain('config: color: blue');
    expect(log).toContain(`task: ${id} ${server.projectId} echo /mnt/task`);
    expect(log).toContain('to stderr');
    expect(task.log_size).toBe(Buffer.byteLength(log));
    expect(task.start_time).toBeTruthy();
    expect(task.end_time).toBeTruthy();
    expect(task.duration).toBeGreaterThanOrEqual(0);
    expect(task.code_rev).toBe('1');
    expect(typeof task.code_history_id).toBe('string');
  });

  it('writes the payload file exactly, a small payload (written from the environment) and a large one (copied in) alike', async () => {
    const small = `it's "quoted" $HOME \\n $(echo no) \`echo no\` é✓\n\nend\n\n`;
    const large = `${'0123456789'.repeat(4000)}\n${small}`;
    const ids = [await worker.queue('cat', small), await worker.queue('cat', large)];
    for (const id of ids) expect((await worker.waitFor(id, ['complete', 'error'])).status).toBe('complete');
    expect(await worker.log(ids[0]!)).toBe(`${small}|c: "1"|0|755\n`);
    expect(await worker.log(ids[1]!)).toBe(`${large}|c: "1"|0|755\n`);
  });

  it("passes the code's env_vars", async () => {
    // A package of its own per mode: the other mode's run gave 'shell' env_vars.
    const name = `env-${mode}`;
    await worker.upload({ name, image: 'ferrum-test/busybox', command: 'sh -c "$(cat $PAYLOAD_FILE)"' });
    const id = await worker.queue(name, 'echo "$GREETING/$MODE/${PAYLOAD_FILE}/${CONFIG_FILE}"');
    await worker.upload({
      name,
      image: 'ferrum-test/busybox',
      command: 'sh -c "$(cat $PAYLOAD_FILE)"',
      env_vars: { GREETING: 'hi', MODE: 'x' },
    });
    const withVars = await worker.queue(name, 'echo "$GREETING/$MODE"');
    await worker.waitFor(id, ['complete']);
    await worker.waitFor(withVars, ['complete']);
    expect(await worker.log(id)).toBe('///mnt/task/payload.json//mnt/task/config.json\n');
    expect(await worker.log(withVars)).toBe('hi/x\n');
    expect((await worker.task(withVars)).code_rev).toBe('2');
  });

  it('keeps stdout and stderr complete and in order', async () => {
    const script = 'i=1; while [ $i -le 200 ]; do echo "out $i"; echo "err $i" >&2; i=$((i+1)); done';
    const id = await worker.queue('shell', script);
    await worker.waitFor(id, ['complete']);
    const expected = Array.from({ length: 200 }, (_, i) => `out ${i + 1}\nerr ${i + 1}\n`).join('');
    expect(await worker.log(id)).toBe(expected);
  });

  it('ends as error with the exit code in msg', async () => {
    const id = await worker.queue('shell', 'echo failing; exit 3');
    const task = await worker.waitFor(id, ['complete', 'error']);
    expect(task.status).toBe('error');
    expect(task.msg).toBe('Exited with code 3');
    expect(await worker.log(id)).toBe('failing\n');
  });

  it('runs a zip package with the -payload -config -id -d arguments in its task directory', async () => {
    const zip = await zipOf({
      'hello.sh': '#!/bin/sh\necho "args: $*"\necho "pwd: $(pwd)"\ncat lib/data.txt\n',
      'lib/data.txt': 'from the zip\n',
    });
    await worker.upload({ name: 'zipped', stack: 'sh', file_name: 'hello.sh', runtime: 'sh' }, zip);
    const id = await worker.queue('zipped', 'p');
    const task = await worker.waitFor(id, ['complete', 'error']);
    expect(task.status).toBe('complete');
    expect(await worker.log(id)).toBe(
      `args: -payload /mnt/task/payload.json -config /mnt/task/config.json -id ${id} -d /mnt/task\npwd: /mnt/task\nfrom the zip\n`,
    );
  });

  it('times out at the task timeout', async () => {
    const id = await worker.queue('shell', 'echo started; sleep 30', { timeout: 2 });
    const task = await worker.waitFor(id, ['timeout', 'complete', 'error'], 15000);
    expect(task.status).toBe('timeout');
    expect(task.msg).toContain('timeout of 2 seconds');
    expect(await worker.log(id)).toBe('started\n');
  });

  it('shows the log while the task runs', async () => {
    const id = await worker.queue('shell', 'echo first; sleep 30');
    await worker.waitFor(id, ['running']);
    await eventually(async () => (await worker.log(id)) === 'first\n', 15_000, `the first log line of ${id}`);
    expect((await worker.task(id)).status).toBe('running');

    // The container runs with the runner's limits, without privileges, on network none.
    const { execFileSync } = await import('node:child_process');
    const containerId = execFileSync('docker', ['ps', '-q', '--filter', `label=ferrum.task=${id}`])
      .toString()
      .trim();
    const [inspected] = JSON.parse(execFileSync('docker', ['inspect', containerId]).toString());
    expect(inspected.HostConfig).toMatchObject({
      NetworkMode: 'none',
      Memory: 512 * 1024 * 1024,
      PidsLimit: 256,
      NanoCpus: 1e9,
      Privileged: false,
    });
    expect(inspected.HostConfig.SecurityOpt).toContain('no-new-privileges');
    expect(inspected.Config.Labels).toMatchObject({
      'ferrum.managed': 'true',
      'ferrum.task': id,
      'ferrum.project': server.projectId,
    });
    await server.http.post(worker.path(`/tasks/${id}/cancel`));
  });

  it('cancels a running task and removes its container', async () => {
    const id = await worker.queue('shell', 'echo working; sleep 30');
    // How long this machine takes to start the container now: removing it is bounded from that.
    const start = await timed(() => worker.waitFor(id, ['running']));
    const response = await server.http.post(worker.path(`/tasks/${id}/cancel`));
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ msg: 'Cancelled' });
    const task = await worker.waitFor(id, ['cancelled']);
    expect(task.msg).toBe('Cancelled');
    const { execFileSync } = await import('node:child_process');
    const left = () =>
      execFileSync('docker', ['ps', '-aq', '--filter', `label=ferrum.task=${id}`])
        .toString()
        .trim();
    await eventually(() => left() === '', boundFrom(start.ms, { floorMs: 10_000 }), `container of ${id} removed`);
    expect((await worker.task(id)).status).toBe('cancelled');
  });

  it('cancels a queued (delayed) task before it runs', async () => {
    const id = await worker.queue('shell', 'echo should not run', { delay: 2 });
    // A witness queued after it with the same delay: once the witness has run, so would the cancelled task have.
    const witness = await worker.queue('shell', 'echo witness', { delay: 2 });
    expect((await worker.task(id)).status).toBe('queued');
    expect((await server.http.post(worker.path(`/tasks/${id}/cancel`))).status).toBe(200);
    expect((await worker.waitFor(witness, ['complete', 'error'])).status).toBe('complete');
    const task = await worker.task(id);
    expect(task.status).toBe('cancelled');
    expect(await worker.log(id)).toBe('');
    // Cancelling it again answers 200, as the original service did, and changes nothing.
    const again = await server.http.post(worker.path(`/tasks/${id}/cancel`));
    expect(again.status).toBe(200);
    expect(await worker.task(id)).toEqual(task);
  });

  it('starts a delayed task only after its delay', async () => {
    const queuedAt = Date.now();
    const id = await worker.queue('shell', 'echo late', { delay: 2 });
    expect((await worker.task(id)).status).toBe('queued');
    const task = await worker.waitFor(id, ['complete']);
    expect(Date.parse(task.start_time) - queuedAt).toBeGreaterThanOrEqual(1900);
  });

  it('ends as error with a clear msg when the image is not available', async () => {
    await worker.upload({ name: 'missing-image', image: 'ferrum-test/does-not-exist:1' });
    const id = await worker.queue('missing-image', '');
    const task = await worker.waitFor(id, ['error', 'complete']);
    expect(task.status).toBe('error');
    expect(task.msg).toContain('Image ferrum-test/does-not-exist:1 is not available');
  });

  it('stops a log at the configured size with a notice', async () => {
    const small = await startRunner(
      server,
      { FERRUM_RUNNER_CLUSTER: clusters.small_logs, FERRUM_WORKER_MAX_LOG_BYTES: '100' },
      { mode },
    );
    try {
      const id = await worker.queue('shell', 'i=0; while [ $i -lt 50 ]; do echo "line $i"; i=$((i+1)); done', {
        cluster: clusters.small_logs,
      });
      expect((await worker.waitFor(id, ['complete', 'error'])).status).toBe('complete');
      const log = await worker.log(id);
      expect(log.startsWith('line 0\nline 1\n')).toBe(true);
      expect(log).toContain('[log truncated: it exceeded 100 bytes]');
      expect(log).not.toContain('line 49');
      expect((await worker.task(id)).log_size).toBe(Buffer.byteLength(log));
    } finally {
      await small.stop();
    }
  });

  it('stops what still runs when the drain time is up, as an error saying so', async () => {
    const impatient = await startRunner(
      server,
      { FERRUM_RUNNER_CLUSTER: clusters.short_drain, FERRUM_RUNNER_DRAIN_MS: '300' },
      { mode },
    );
    const id = await worker.queue('shell', 'sleep 30', { cluster: clusters.short_drain });
    await worker.waitFor(id, ['running']);
    const stopping = Date.now();
    await impatient.stop();
    expect(Date.now() - stopping).toBeLessThan(scaled(10000));
    const task = await worker.task(id);
    expect(task.status).toBe('error');
    expect(task.msg).toBe('The runner shut down before the task finished');
  });

  it('ends as error with a clear msg when the Docker engine is unreachable', async () => {
    const blind = await startRunner(
      server,
      { FERRUM_RUNNER_CLUSTER: clusters.no_docker },
      { mode, docker: new Docker({ socketPath: '/nonexistent/docker.sock' }) },
    );
    try {
      const id = await worker.queue('echo', '', { cluster: clusters.no_docker });
      const task = await worker.waitFor(id, ['error', 'complete']);
      expect(task.msg).toContain('Docker engine unavailable');
    } finally {
      await blind.stop();
    }
  });
});

describe('a gateway runner whose token is revoked', () => {
  /** A gateway runner on a cluster made for it (`name`), with a new runner token of that cluster. */
  async function gatewayRunnerOfItsOwn(name: string) {
    const cluster = await createCluster(server.http, name);
    const token = await createRunnerToken(server, cluster);
    const runner = await startRunner(
      server,
      { FERRUM_RUNNER_CLUSTER: cluster },
      { mode: 'gateway', token: token.token },
    );
    return { cluster, token, runner };
  }

  it('stops at its next call and takes no task afterwards', async () => {
    const { cluster, token, runner } = await gatewayRunnerOfItsOwn('revoked');
    const before = await worker.queue('shell', 'echo before', { cluster });
    expect((await worker.waitFor(before, ['complete', 'error'])).status).toBe('complete');

    const revoked = await server.http.delete(`/2/clusters/${cluster}/tokens/${token.id}`);
    expect(revoked.status).toBe(200);
    let stopped = false;
    void runner.whenStopped().then(() => (stopped = true));
    await eventually(() => stopped, 15_000, 'the revoked runner stopped');
    const after = await worker.queue('shell', 'echo after', { cluster });
    // A witness: a runner with a valid token, on another cluster, takes and runs a task queued
    // after it; by then a revoked runner still polling would have taken `after`.
    const { cluster: witnessCluster, runner: witnessRunner } = await gatewayRunnerOfItsOwn('revoked-witness');
    try {
      const witness = await worker.queue('shell', 'echo witness', { cluster: witnessCluster });
      expect((await worker.waitFor(witness, ['complete', 'error'])).status).toBe('complete');
    } finally {
      await witnessRunner.stop();
    }
    expect((await worker.task(after)).status).toBe('queued');
    await server.http.post(worker.path(`/tasks/${after}/cancel`));
  });
});
