import { describe, expect, it } from 'vitest';
import { commandsOf, useCliSession } from '../../helpers/cli.js';
import { scaled } from '../../helpers/pace.js';

const session = useCliSession();
const { ferrum, json } = commandsOf(session);

describe('ferrum mq', { timeout: scaled(120_000) }, () => {
  it('creates a queue, lists it and shows its info', async () => {
    const created = await json('mq', 'create', 'cli-orders', '--timeout', '120');
    expect(created.queue).toMatchObject({ name: 'cli-orders', message_timeout: 120 });
    await json('mq', 'create', 'cli-other');

    const listed = await ferrum('mq', 'list', '--prefix', 'cli-');
    expect(listed.stdout).toBe('NAME\ncli-orders\ncli-other\n');

    const info = await ferrum('mq', 'view', 'cli-orders');
    expect(info.stdout).toMatch(/^size\s+0$/m);
    expect(info.stdout).toMatch(/^message_timeout\s+120$/m);
  });

  it('posts, peeks, reserves and deletes messages; the body can come from stdin', async () => {
    const posted = await json('mq', 'post', 'cli-work', 'first', 'second');
    expect(posted.ids).toHaveLength(2);
    const piped = await session.cli.run(['mq', 'post', 'cli-work', '--file', '-'], {
      cwd: session.cwd,
      input: 'third from stdin',
    });
    expect(piped.stdout).toMatch(/^ID\n\d+\n$/);

    const peeked = await ferrum('mq', 'peek', 'cli-work', '-n', '3');
    expect(peeked.stdout.split('\n')[0]).toMatch(/^ID\s+RESERVED_COUNT\s+BODY$/);
    expect(peeked.stdout).toMatch(/\s0\s+first\n/);
    expect(peeked.stdout).toMatch(/\s0\s+third from stdin\n/);

    const reserved = await json('mq', 'reserve', 'cli-work', '-n', '2', '--timeout', '60');
    expect(reserved.messages.map((message: any) => message.body)).toEqual(['first', 'second']);
    const [first, second] = reserved.messages;

    const deleted = await ferrum(
      'mq',
      'messages',
      'delete',
      'cli-work',
      first.id,
      '--reservation-id',
      first.reservation_id,
    );
    expect(deleted).toMatchObject({ code: 0, stdout: 'Deleted\n' });
    const wrongReservation = await ferrum(
      'mq',
      'messages',
      'delete',
      'cli-work',
      second.id,
      '--reservation-id',
      'not-the-reservation',
    );
    expect(wrongReservation.code).toBe(1);
    expect(wrongReservation.stderr).toMatch(/^ferrum: \S.*\n$/);

    // One reserved (second), one ready (third): info tells them apart.
    expect((await json('mq', 'view', 'cli-work')).queue).toMatchObject({ size: 2, ready: 1, reserved: 1, delayed: 0 });
    const table = await ferrum('mq', 'reserve', 'cli-work', '--delete');
    expect(table.stdout).toMatch(/^ID\s+RESERVED_COUNT\s+RESERVATION_ID\s+BODY\n\d+\s+1\s+\S+\s+third from stdin\n$/);
  });

  it('consume prints each message as a JSON line and deletes each batch with the next reserve (ack-and-next)', async () => {
    const bodies = Array.from({ length: 5 }, (_, i) => `job ${i}`);
    await json('mq', 'post', 'cli-consume', ...bodies);
    const limited = await ferrum('mq', 'consume', 'cli-consume', '-n', '2', '--max', '3');
    expect(limited.code, limited.stderr).toBe(0);
    expect(
      limited.stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line).body),
    ).toEqual(bodies.slice(0, 3));
    expect((await json('mq', 'view', 'cli-consume')).queue.size).toBe(2);
    const rest = await ferrum('mq', 'consume', 'cli-consume', '-n', '1');
    expect(
      rest.stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line)),
    ).toMatchObject([
      { body: 'job 3', reserved_count: 1 },
      { body: 'job 4', reserved_count: 1 },
    ]);
    expect((await json('mq', 'view', 'cli-consume')).queue.size).toBe(0);
  });

  it('clears a queue, deletes messages in a batch, and reports server errors with their msg', async () => {
    const { ids } = await json('mq', 'post', 'cli-batch', 'a', 'b', 'c');
    expect((await ferrum('mq', 'messages', 'delete', 'cli-batch', ids[0], ids[1])).stdout).toBe('Deleted\n');
    expect((await json('mq', 'view', 'cli-batch')).queue.size).toBe(1);
    expect((await ferrum('mq', 'clear', 'cli-batch')).stdout).toBe('Cleared\n');
    expect((await json('mq', 'view', 'cli-batch')).queue.size).toBe(0);

    const missing = await ferrum('mq', 'reserve', 'no-such-queue');
    expect(missing).toMatchObject({ code: 1, stderr: 'ferrum: Queue not found\n' });
    const usage = await ferrum('mq', 'reserve', 'cli-batch', '--wait', '31');
    expect(usage.code).toBe(2);
    expect(usage.stderr).toMatch(/must be an integer from 0 to 30/);
    expect((await ferrum('mq', 'delete', 'cli-batch')).stdout).toBe('Deleted\n');
  });

  it('reserve --wait long-polls until a message arrives', async () => {
    await json('mq', 'create', 'cli-wait');
    const waiting = ferrum('mq', 'reserve', 'cli-wait', '--wait', '10', '--json');
    // eslint-disable-next-line no-restricted-syntax -- the post must come after the CLI began its long-poll, which no state shows from outside its process
    await new Promise((resolve) => setTimeout(resolve, 1500));
    await session.server.http.post(`/3/projects/${session.server.projectId}/queues/cli-wait/messages`, {
      messages: [{ body: 'late' }],
    });
    const result = await waiting;
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout).messages.map((message: any) => message.body)).toEqual(['late']);
  });
});

describe('ferrum cache', { timeout: scaled(120_000) }, () => {
  it('puts, gets, increments, lists and deletes items', async () => {
    expect((await ferrum('cache', 'put', 'cli-cache', 'greeting', 'hello world')).stdout).toBe('Stored.\n');
    expect((await ferrum('cache', 'get', 'cli-cache', 'greeting')).stdout).toBe('hello world\n');
    const item = await json('cache', 'get', 'cli-cache', 'greeting');
    expect(item).toMatchObject({ cache: 'cli-cache', key: 'greeting', value: 'hello world' });

    await ferrum('cache', 'put', 'cli-cache', 'hits', '10', '--number');
    expect((await ferrum('cache', 'incr', 'cli-cache', 'hits')).stdout).toBe('11\n');
    expect((await json('cache', 'incr', 'cli-cache', 'hits', '-5')).value).toBe(6);
    const notNumeric = await ferrum('cache', 'incr', 'cli-cache', 'greeting');
    expect(notNumeric).toMatchObject({ code: 1, stderr: 'ferrum: Cannot increment or decrement non-numeric value\n' });

    const added = await ferrum('cache', 'put', 'cli-cache', 'greeting', 'other', '--add');
    expect(added).toMatchObject({ code: 0, stdout: 'Not stored: add keeps the item already under this key.\n' });
    expect((await ferrum('cache', 'get', 'cli-cache', 'greeting')).stdout).toBe('hello world\n');

    await ferrum('cache', 'put', 'cli-second', 'k', 'v');
    const listed = await ferrum('cache', 'list');
    expect(listed.stdout).toMatch(/^NAME\s+PROJECT_ID\n/);
    expect(listed.stdout).toMatch(new RegExp(`^cli-cache\\s+${session.server.projectId}$`, 'm'));
    expect(listed.stdout).toMatch(new RegExp(`^cli-second\\s+${session.server.projectId}$`, 'm'));
    expect((await json('cache', 'view', 'cli-cache')).size).toBe(2);

    expect((await ferrum('cache', 'items', 'delete', 'cli-cache', 'greeting')).stdout).toBe('Deleted.\n');
    const gone = await ferrum('cache', 'get', 'cli-cache', 'greeting');
    expect(gone.code).toBe(1);
    expect(gone.stderr).toMatch(/^ferrum: The resource, project, or endpoint being requested doesn't exist/);
    const badAmount = await ferrum('cache', 'incr', 'cli-cache', 'hits', 'lots');
    expect(badAmount.code).toBe(2);
  });
});
