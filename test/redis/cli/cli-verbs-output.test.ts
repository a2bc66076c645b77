import { describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { commandsOf, useCliSession } from '../../helpers/cli.js';
import { scaled } from '../../helpers/pace.js';

const { ferrum, json } = commandsOf(useCliSession());

describe('ferrum output formats', { timeout: scaled(120_000) }, () => {
  it('prints the same answer with -o json, --json and -o yaml; -o wide shows every field', async () => {
    expect((await ferrum('mq', 'post', 'fmt-queue', 'first', 'second')).code).toBe(0);
    const asJson = JSON.parse((await ferrum('mq', 'peek', 'fmt-queue', '-n', '2', '-o', 'json')).stdout);
    expect(asJson.messages.map((message: { body: string }) => message.body)).toEqual(['first', 'second']);
    expect(await json('mq', 'peek', 'fmt-queue', '-n', '2')).toEqual(asJson);
    const yaml = await ferrum('mq', 'peek', 'fmt-queue', '-n', '2', '-o', 'yaml');
    expect(yaml.code, yaml.stderr).toBe(0);
    expect(yaml.stdout).toMatch(/^messages:\n {2}- /);
    expect(YAML.parse(yaml.stdout)).toEqual(asJson);

    const table = await ferrum('mq', 'peek', 'fmt-queue', '-n', '1');
    const wide = await ferrum('mq', 'peek', 'fmt-queue', '-n', '1', '-o', 'wide');
    const fields = Object.keys(asJson.messages[0]).map((field) => field.toUpperCase());
    expect(wide.stdout.split('\n')[0]!.split(/\s+/)).toEqual(fields);
    expect(table.stdout.split('\n')[0]!.split(/\s+/)).toEqual(['ID', 'RESERVED_COUNT', 'BODY']);
    expect(YAML.parse((await ferrum('mq', 'view', 'fmt-queue', '-o', 'yaml')).stdout).queue.size).toBe(2);
  });

  it('refuses --json beside another -o as a usage error', async () => {
    const both = await ferrum('mq', 'list', '--json', '-o', 'yaml');
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(/^error: --json and -o yaml disagree: give one\nUsage: ferrum mq list /);
  });
});

describe('ferrum old spellings', { timeout: scaled(120_000) }, () => {
  it('still work for a release, saying on stderr what to type now', async () => {
    await ferrum('mq', 'post', 'old-queue', 'a', 'b');
    const info = await ferrum('mq', 'info', 'old-queue', '--json');
    expect(info.code, info.stderr).toBe(0);
    expect(JSON.parse(info.stdout)).toEqual(await json('mq', 'view', 'old-queue'));
    expect(info.stderr).toBe("ferrum: 'ferrum mq info' is now 'ferrum mq view'; the old spelling goes next release\n");
    expect((await ferrum('mq', 'view', 'old-queue')).stderr).toBe('');

    const [first] = (await json('mq', 'peek', 'old-queue', '-n', '1')).messages;
    const deletedMessage = await ferrum('mq', 'delete', 'old-queue', first.id);
    expect(deletedMessage.code, deletedMessage.stderr).toBe(0);
    expect(deletedMessage.stdout).toBe('Deleted\n');
    expect(deletedMessage.stderr).toMatch(/is now 'ferrum mq messages delete'/);
    expect((await json('mq', 'view', 'old-queue')).queue.size).toBe(1);

    const deletedQueue = await ferrum('mq', 'delete-queue', 'old-queue');
    expect(deletedQueue.code, deletedQueue.stderr).toBe(0);
    expect(deletedQueue.stdout).toBe('Deleted\n');
    expect(deletedQueue.stderr).toMatch(/is now 'ferrum mq delete'/);

    await ferrum('cache', 'put', 'old-cache', 'k', 'v');
    const item = await ferrum('cache', 'delete', 'old-cache', 'k');
    expect(item.code, item.stderr).toBe(0);
    expect(item.stderr).toMatch(/is now 'ferrum cache items delete'/);
    expect((await ferrum('cache', 'get', 'old-cache', 'k')).code).toBe(1);
    expect((await ferrum('cache', 'info', 'old-cache')).stderr).toMatch(/is now 'ferrum cache view'/);
    expect((await ferrum('cache', 'delete', 'old-cache')).code).toBe(0);
  });
});

describe('ferrum worker schedule create --cron', { timeout: scaled(120_000) }, () => {
  it('schedules at the times of a cron expression in a time zone; a bad expression is the server refusal', async () => {
    const upload = await ferrum('worker', 'upload', 'cron-code', '--image', 'ferrum-test/busybox');
    expect(upload.code, upload.stderr).toBe(0);
    const created = await json(
      'worker',
      'schedule',
      'create',
      'cron-code',
      '--cron',
      '30 3 * * *',
      '--timezone',
      'Europe/Berlin',
    );
    const id = created.schedules[0].id;
    const schedule = await json('worker', 'schedule', 'view', id);
    expect(schedule).toMatchObject({ cron: '30 3 * * *', timezone: 'Europe/Berlin' });
    const next = new Date(schedule.next_start);
    const berlin = new Intl.DateTimeFormat('en-GB', { timeZone: 'Europe/Berlin', timeStyle: 'short' });
    expect(berlin.format(next)).toBe('03:30');
    expect((await ferrum('worker', 'schedule', 'list')).stdout).toMatch(
      new RegExp(`^${id}\\s+cron-code\\s.*30 3 \\* \\* \\*`, 'm'),
    );

    const bad = await ferrum('worker', 'schedule', 'create', 'cron-code', '--cron', 'every day');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/^ferrum: \S.*\n$/);
  });
});

describe('ferrum functions calls', { timeout: scaled(120_000) }, () => {
  it('lists an app’s calls, shows one and prints its log', async () => {
    await ferrum('functions', 'apps', 'create', 'calls-app');
    const route = ['functions', 'routes', 'create', 'calls-app', '/job', '--image', 'ferrum-test/busybox'];
    expect((await ferrum(...route, '--type', 'async')).code).toBe(0);
    const called = await json('functions', 'call', 'calls-app', '/job', '--data', '{}');
    const callId: string = called.call_id;

    const listed = await json('functions', 'calls', 'list', 'calls-app');
    expect(listed.calls.map((call: { id: string }) => call.id)).toContain(callId);
    const table = await ferrum('functions', 'calls', 'list', 'calls-app');
    expect(table.stdout).toMatch(new RegExp(`^ID\\s+PATH\\s+TYPE\\s+STATUS[^\\n]*\\n${callId}\\s+/job\\s+async\\s`));
    expect((await json('functions', 'calls', 'view', 'calls-app', callId)).call).toMatchObject({ id: callId });

    const log = await ferrum('functions', 'calls', 'log', 'calls-app', callId, '--json');
    expect(log.code, log.stderr).toBe(0);
    expect(JSON.parse(log.stdout).log.call_id).toBe(callId);
    const unknown = await ferrum('functions', 'calls', 'log', 'calls-app', 'ffffffffffffffffffffffff');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/^ferrum: \S.*\n$/);
  });
});
