import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { useCliSession } from '../../helpers/cli.js';
import { eventually } from '../../helpers/eventually.js';
import { createCluster, startRunner, startWorkerServer } from '../../helpers/worker.js';
import { useRunner, workerClientOf } from '../../helpers/worker-test-file.js';
import { scaled } from '../../helpers/pace.js';

const SHELL = 'sh -c "$(cat $PAYLOAD_FILE)"';
const session = useCliSession(startWorkerServer);
useRunner(session.server);
const worker = workerClientOf(session.server);
const ferrum = (...args: string[]) => session.ferrum(args);

beforeAll(async () => {
  const uploaded = await ferrum('worker', 'upload', 'cli-shell', '--image', 'ferrum-test/busybox', '--command', SHELL);
  expect(uploaded.code, uploaded.stderr).toBe(0);
  expect(uploaded.stdout).toMatch(/^Upload successful\. \(code id [0-9a-f]{24}\)\n$/);
});

async function queue(code: string, payload: string): Promise<string> {
  const result = await ferrum('worker', 'queue', code, '--payload', payload, '--json');
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout).tasks[0].id;
}

describe('ferrum worker', { timeout: scaled(120_000) }, () => {
  it('log --follow prints the lines of a running task as they come and exits when it ends', async () => {
    // The task waits in a cluster without a runner until the follower has said so (its first poll
    // saw the task queued), so even a slow spawn sees the task run.
    const cluster = await createCluster(session.server.http, 'cli-follow');
    const queued = await ferrum(
      'worker',
      'queue',
      'cli-shell',
      '--payload',
      'echo line one; sleep 4; echo line two',
      '--cluster',
      cluster,
      '--json',
    );
    expect(queued.code, queued.stderr).toBe(0);
    const id: string = JSON.parse(queued.stdout).tasks[0].id;
    const chunks: { text: string; at: number }[] = [];
    let notices = '';
    const following = session.cli.run(['worker', 'tasks', 'log', id, '--follow', '--interval', '100'], {
      cwd: session.cwd,
      onStdout: (text) => chunks.push({ text, at: Date.now() }),
      onStderr: (text) => (notices += text),
    });
    await eventually(() => notices.includes(`no runner serves cluster ${cluster}`), 30_000, 'the follower polling');
    const late = await startRunner(session.server, { FERRUM_RUNNER_CLUSTER: cluster });
    const followed = await following.finally(() => late.stop());
    expect(followed.code, followed.stderr).toBe(0);
    expect(followed.stdout).toBe('line one\nline two\n');
    const ended = Date.parse((await worker.task(id)).end_time);
    expect(chunks[0]!.text).toBe('line one\n');
    expect(chunks[0]!.at).toBeLessThan(ended);

    const status = await ferrum('worker', 'tasks', 'view', id);
    expect(status.stdout).toMatch(/^status\s+complete$/m);
    expect(status.stdout).toMatch(/^code_name\s+cli-shell$/m);
    expect((await ferrum('worker', 'tasks', 'log', id)).stdout).toBe('line one\nline two\n');

    // What the follower reads: only the bytes from an offset on.
    const logPath = `/2/projects/${session.server.projectId}/tasks/${id}/log`;
    expect((await session.server.http.get(`${logPath}?offset=9`)).text).toBe('line two\n');
    expect((await session.server.http.get(`${logPath}?offset=1000`)).text).toBe('');
    const negative = await session.server.http.get(`${logPath}?offset=-1`);
    expect(negative.status).toBe(400);
    expect(negative.body.msg).toMatch(/offset/);
  });

  it('log --follow of a failing task prints its log, then the outcome, and exits 1', async () => {
    const id = await queue('cli-shell', 'echo about to fail; exit 3');
    const followed = await ferrum('worker', 'tasks', 'log', id, '-f', '--interval', '100');
    expect(followed.stdout).toBe('about to fail\n');
    expect(followed.code).toBe(1);
    expect(followed.stderr).toMatch(new RegExp(`^ferrum: task ${id} ended error`));
  });

  it('uploads a directory run by --file-name and --runtime, with no --command', async () => {
    const dir = fs.mkdtempSync(path.join(session.cli.home, 'code-'));
    fs.writeFileSync(path.join(dir, 'main.sh'), 'echo "by runtime: $(cat $PAYLOAD_FILE)"\n');
    const uploaded = await ferrum('worker', 'upload', 'cli-runtime', dir, '--file-name', 'main.sh', '--runtime', 'sh');
    expect(uploaded.code, uploaded.stderr).toBe(0);
    const id = await queue('cli-runtime', '{"n":2}');
    await worker.waitFor(id, ['complete', 'error']);
    expect((await ferrum('worker', 'tasks', 'log', id)).stdout).toBe('by runtime: {"n":2}\n');
  });

  it('uploads a directory as a zip package, queues with a payload file, and lists codes and tasks', async () => {
    const dir = fs.mkdtempSync(path.join(session.cli.home, 'code-'));
    fs.mkdirSync(path.join(dir, 'lib'));
    fs.writeFileSync(path.join(dir, 'run.sh'), 'echo "from zip: $(cat lib/word.txt) $(cat $PAYLOAD_FILE)"\n');
    fs.writeFileSync(path.join(dir, 'lib', 'word.txt'), 'hello');
    const uploaded = await ferrum('worker', 'upload', 'cli-dir', dir, '--stack', 'sh', '--command', 'sh run.sh');
    expect(uploaded.code, uploaded.stderr).toBe(0);

    const payloadFile = path.join(dir, 'payload.json');
    fs.writeFileSync(payloadFile, '{"n":1}');
    const queued = await ferrum('worker', 'queue', 'cli-dir', '--payload-file', payloadFile);
    expect(queued.stdout).toMatch(/^ID\n[0-9a-f]{24}\n$/);
    const id = queued.stdout.trim().split('\n')[1]!;
    await worker.waitFor(id, ['complete', 'error']);
    expect((await ferrum('worker', 'tasks', 'log', id)).stdout).toBe('from zip: hello {"n":1}\n');

    const codes = await ferrum('worker', 'codes', 'list');
    expect(codes.stdout).toMatch(/^ID\s+NAME\s+REV\s+IMAGE\s+COMMAND\s+LATEST_CHANGE$/m);
    expect(codes.stdout).toMatch(/\scli-dir\s+1\s/);
    expect(codes.stdout).toMatch(/\scli-shell\s+1\s+ferrum-test\/busybox\s/);

    const tasks = JSON.parse(
      (await ferrum('worker', 'tasks', 'list', '--code-name', 'cli-dir', '--json')).stdout,
    ).tasks;
    expect(tasks.map((task: any) => task.id)).toEqual([id]);

    const both = await ferrum('worker', 'queue', 'cli-dir', '--payload', 'x', '--payload-file', payloadFile);
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(/give --payload or --payload-file, not both/);
    const notZip = await ferrum('worker', 'upload', 'cli-bad', payloadFile, '--stack', 'sh');
    expect(notZip.code).toBe(2);
    expect(notZip.stderr).toMatch(/is not a zip archive or a directory/);
    const noImage = await ferrum('worker', 'upload', 'cli-bad');
    expect(noImage).toMatchObject({ code: 1, stderr: 'ferrum: image is required\n' });
  });

  it('cancels a running task', async () => {
    const id = await queue('cli-shell', 'echo started; sleep 30');
    await worker.waitFor(id, ['running']);
    expect((await ferrum('worker', 'tasks', 'cancel', id)).stdout).toBe('Cancelled\n');
    const task = await worker.waitFor(id, ['cancelled']);
    expect(task.status).toBe('cancelled');
    const again = await ferrum('worker', 'tasks', 'view', 'ffffffffffffffffffffffff');
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/^ferrum: .*not found/i);
  });

  it('creates, lists, shows and cancels a schedule', async () => {
    const startAt = new Date(Date.now() + 3600_000).toISOString();
    const created = await ferrum(
      'worker',
      'schedule',
      'create',
      'cli-shell',
      '--payload',
      'echo scheduled',
      '--start-at',
      startAt,
      '--run-every',
      '3600',
      '--run-times',
      '2',
      '--json',
    );
    expect(created.code, created.stderr).toBe(0);
    const id = JSON.parse(created.stdout).schedules[0].id;

    const listed = await ferrum('worker', 'schedule', 'list');
    expect(listed.stdout).toMatch(new RegExp(`^${id}\\s+cli-shell\\s+scheduled\\s+3600\\s`, 'm'));
    const shown = await ferrum('worker', 'schedule', 'view', id);
    expect(shown.stdout).toMatch(/^run_times\s+2$/m);

    expect((await ferrum('worker', 'schedule', 'cancel', id)).stdout).toBe('Cancelled\n');
    const tooOften = await ferrum('worker', 'schedule', 'create', 'cli-shell', '--run-every', '5');
    expect(tooOften.code).toBe(1);
    expect(tooOften.stderr).toMatch(/^ferrum: .*run_every/);
  });
});
