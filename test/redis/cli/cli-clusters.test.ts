import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useCliSession } from '../../helpers/cli.js';
import { eventually } from '../../helpers/eventually.js';
import { createCluster, WorkerClient } from '../../helpers/worker.js';
import { scaled } from '../../helpers/pace.js';

const session = useCliSession();
const ferrum = (args: string[], input?: string) => session.ferrum(args, { input });

/** GET /runner/v1/token with a runner token, as a gateway runner checks its token. */
const runnerCall = (token: string) =>
  session.server.http.withToken(null).get('/runner/v1/token', { headers: { Authorization: `Bearer ${token}` } });

describe('ferrum clusters and runners', { timeout: scaled(120_000) }, () => {
  it('creates from a file, lists, shows, updates from stdin, terminates and deletes a cluster', async () => {
    fs.writeFileSync(path.join(session.cwd, 'cluster.json'), JSON.stringify({ name: 'cli-cluster', memory: 1024 }));
    const created = await ferrum(['clusters', 'create', 'cluster.json', '--json']);
    expect(created.code, created.stderr).toBe(0);
    const { cluster } = JSON.parse(created.stdout);
    expect(cluster).toMatchObject({ name: 'cli-cluster', memory: 1024 });

    const listed = await ferrum(['clusters', 'list']);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout.split('\n')[0]).toMatch(/^ID\s+NAME\s+USER_ID\s+MEMORY/);
    expect(listed.stdout).toMatch(new RegExp(`^${cluster.id}\\s+cli-cluster\\s`, 'm'));

    const updated = await ferrum(['clusters', 'edit', cluster.id, '-'], JSON.stringify({ name: 'renamed' }));
    expect(updated.code, updated.stderr).toBe(0);
    expect(updated.stdout).toMatch(/^name\s+renamed$/m);
    const shown = await ferrum(['clusters', 'view', cluster.id]);
    expect(shown.stdout).toMatch(/^memory\s+1024$/m);

    const terminated = await ferrum(['clusters', 'terminate', cluster.id]);
    expect(terminated.code, terminated.stderr).toBe(0);
    expect(terminated.stdout).toBe('Terminating 0 instances\n');
    const deleted = await ferrum(['clusters', 'delete', cluster.id]);
    expect(deleted.stdout).toBe('Deleted\n');
    const gone = await ferrum(['clusters', 'view', cluster.id]);
    expect(gone.code).toBe(1);
    expect(gone.stderr).toContain(`Cluster ${cluster.id} not found`);
  });

  it('lists the runners of a cluster with the tasks they run', async () => {
    const now = Date.now();
    await session.server.running.ctx.worker.runners.heartbeat(
      {
        instance_id: 'cli-runner',
        cluster: 'default',
        hostname: 'runner-host',
        slots: 2,
        busy: 1,
        tasks: ['aaaaaaaaaaaaaaaaaaaaaaaa'],
        version: '0.1.0',
        created_at: now,
        updated_at: now,
        expires_at: 0,
      },
      60_000,
    );
    const listed = await ferrum(['runners', 'list', 'default']);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toMatch(/^cli-runner\s+runner-host\s+0\.1\.0\s+2\s+1\s+aaaaaaaaaaaaaaaaaaaaaaaa\s/m);
  });

  it('creates a runner token (its secret printed once), lists it without the secret and revokes it', async () => {
    const cluster = await createCluster(session.server.http, 'cli-tokens');
    const created = await ferrum(['clusters', 'tokens', 'create', cluster]);
    expect(created.code, created.stderr).toBe(0);
    const id = /^id\s+(\S+)$/m.exec(created.stdout)?.[1];
    const token = /^token\s+(runner_\S+)$/m.exec(created.stdout)?.[1];
    expect(id, created.stdout).toBeDefined();
    expect(token, created.stdout).toBeDefined();
    expect(created.stdout).toMatch(/^created_at\s+\d{4}-\d\d-\d\dT/m);
    expect((await runnerCall(token!)).status).toBe(200);

    const listed = await ferrum(['clusters', 'tokens', 'list', cluster]);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout.split('\n')[0]).toMatch(/^ID\s+CREATED_AT$/);
    expect(listed.stdout).toMatch(new RegExp(`^${id}\\s+\\d{4}-`, 'm'));
    expect(listed.stdout).not.toContain(token);
    const listedJson = await ferrum(['clusters', 'tokens', 'list', cluster, '--json']);
    expect(JSON.parse(listedJson.stdout).tokens).toEqual([{ id, created_at: expect.any(String) }]);
    expect(listedJson.stdout).not.toContain(token);

    const deleted = await ferrum(['clusters', 'tokens', 'delete', cluster, id!]);
    expect(deleted.code, deleted.stderr).toBe(0);
    expect(deleted.stdout).toBe('Revoked\n');
    const refused = await runnerCall(token!);
    expect(refused.status).toBe(401);
    expect(refused.body.msg).toBe('Invalid or revoked runner token');
    expect((await ferrum(['clusters', 'tokens', 'list', cluster])).stdout).toBe('(none)\n');
  });

  it('refuses runner tokens and runners of an unknown cluster, and an unknown token, in one line', async () => {
    for (const args of [
      ['clusters', 'tokens', 'create', 'no-such-cluster'],
      ['clusters', 'tokens', 'list', 'no-such-cluster'],
      ['clusters', 'tokens', 'delete', 'no-such-cluster', 'aaaaaaaaaaaaaaaaaaaaaaaa'],
      ['runners', 'list', 'no-such-cluster'],
    ]) {
      const result = await ferrum(args);
      expect(result.code, args.join(' ')).toBe(1);
      expect(result.stdout).toBe('');
      expect(result.stderr).toMatch(/^ferrum: .*Cluster no-such-cluster not found.*\n$/);
    }
    const cluster = await createCluster(session.server.http, 'cli-tokens-unknown');
    const unknown = await ferrum(['clusters', 'tokens', 'delete', cluster, 'no-such-token']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(new RegExp(`^ferrum: .*Cluster ${cluster} has no runner token no-such-token.*\\n$`));
    const missing = await ferrum(['clusters', 'tokens', 'delete', cluster]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("missing required argument 'token_id'");
  });

  it('refuses a cluster file that is missing or not a JSON object as a usage error', async () => {
    const missing = await ferrum(['clusters', 'create', 'no-such-file.json']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('cannot read no-such-file.json');
    const notObject = await ferrum(['clusters', 'create', '-'], '[1, 2]');
    expect(notObject.code).toBe(2);
    expect(notObject.stderr).toContain('- is not a JSON object');
  });
});

describe('clusters by name', { timeout: scaled(120_000) }, () => {
  it('clusters create --name, then every <cluster> and --cluster take the name', async () => {
    const created = await ferrum(['clusters', 'create', '--name', 'by-name', '--json']);
    expect(created.code, created.stderr).toBe(0);
    const { cluster } = JSON.parse(created.stdout);
    expect(cluster.name).toBe('by-name');

    const shown = await ferrum(['clusters', 'view', 'by-name']);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toMatch(new RegExp(`^id\\s+${cluster.id}$`, 'm'));
    expect((await ferrum(['runners', 'list', 'by-name'])).stdout).toBe('(none)\n');
    expect((await ferrum(['clusters', 'tokens', 'create', 'by-name'])).code).toBe(0);
    expect((await ferrum(['clusters', 'tokens', 'list', 'by-name'])).stdout).toMatch(/^ID\s+CREATED_AT$/m);

    const worker = new WorkerClient(session.server.http, session.server.projectId);
    await worker.upload({ name: 'by-name-code', image: 'ferrum-test/busybox', command: 'true' });
    const queued = await ferrum(['worker', 'queue', 'by-name-code', '--cluster', 'by-name', '--json']);
    expect(queued.code, queued.stderr).toBe(0);
    const taskId = JSON.parse(queued.stdout).tasks[0].id;
    expect((await worker.task(taskId)).cluster).toBe(cluster.id);
    const scheduled = await ferrum(
      'worker schedule create by-name-code --cluster by-name --run-times 1 --json'.split(' '),
    );
    expect(scheduled.code, scheduled.stderr).toBe(0);
    const scheduleId = JSON.parse(scheduled.stdout).schedules[0].id;
    const schedule = await session.server.http.get(`/2/projects/${session.server.projectId}/schedules/${scheduleId}`);
    expect(schedule.body.cluster).toBe(cluster.id);
    // The file's name gives way to --name.
    fs.writeFileSync(path.join(session.cwd, 'named.json'), JSON.stringify({ name: 'from-file', memory: 512 }));
    const both = await ferrum(['clusters', 'create', 'named.json', '--name', 'from-flag', '--json']);
    expect(JSON.parse(both.stdout).cluster).toMatchObject({ name: 'from-flag', memory: 512 });
  });

  it('refuses an unknown or ambiguous name, and create with neither --name nor a file', async () => {
    const unknown = await ferrum(['worker', 'queue', 'anything', '--cluster', 'no-such-name']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toBe(
      'ferrum: Cluster no-such-name not found: no cluster you can see has that id or name (ferrum clusters list)\n',
    );
    const first = await createCluster(session.server.http, 'twice-named');
    const second = await createCluster(session.server.http, 'twice-named');
    const ambiguous = await ferrum(['clusters', 'view', 'twice-named']);
    expect(ambiguous.code).toBe(1);
    expect(ambiguous.stderr).toContain('2 clusters are named "twice-named"');
    expect(ambiguous.stderr).toContain(first);
    expect(ambiguous.stderr).toContain(second);
    const neither = await ferrum(['clusters', 'create']);
    expect(neither.code).toBe(2);
    expect(neither.stderr).toContain('give --name or a cluster file');
  });
});

describe('ferrum worker log --follow on a cluster no runner serves', { timeout: scaled(120_000) }, () => {
  it('says so on stderr and keeps waiting until the task ends', async () => {
    const cluster = await createCluster(session.server.http, 'unserved');
    const worker = new WorkerClient(session.server.http, session.server.projectId);
    await worker.upload({ name: 'unserved-code', image: 'ferrum-test/busybox', command: 'true' });
    const taskId = await worker.queue('unserved-code', '{}', { cluster });
    let stderr = '';
    const follow = session.cli.start(['worker', 'tasks', 'log', taskId, '--follow', '--interval', '50'], {
      cwd: session.cwd,
      onStderr: (chunk) => (stderr += chunk),
    });
    await eventually(() => stderr.includes('no runner serves'), 30_000, 'the notice');
    expect(stderr).toBe(
      `ferrum: no runner serves cluster ${cluster}: task ${taskId} stays queued until one starts ` +
        `(ferrum runners list ${cluster}); still waiting\n`,
    );
    expect(follow.child.exitCode).toBeNull();
    expect(
      (await session.server.http.post(`/2/projects/${session.server.projectId}/tasks/${taskId}/cancel`)).status,
    ).toBe(200);
    const ended = await follow.result;
    expect(ended.code).toBe(1);
    expect(ended.stderr).toContain(`task ${taskId} ended cancelled`);
  });
});
