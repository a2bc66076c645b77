import { beforeAll, describe, expect, it } from 'vitest';
import { recordOutsideRequests, screenshot } from '../../helpers/browser.js';
import { MqClient, uniqueQueue } from '../../helpers/mq.js';
import { useDashboard } from '../../helpers/dashboard.js';
import { WorkerClient } from '../../helpers/worker.js';
import { scaled } from '../../helpers/pace.js';

// Operations in the dashboard: token sign-in, the project's name, live lists, bulk task actions, dead letters.
let mq: MqClient;
let worker: WorkerClient;
// No runner: queued tasks stay queued until the test cancels them.
const session = useDashboard();

beforeAll(() => {
  mq = new MqClient(session.server.http, session.server.projectId);
  worker = new WorkerClient(session.server.http, session.server.projectId);
  session.page.on('dialog', (dialog) => void dialog.accept());
});

describe('dashboard for operations', () => {
  it('signs in with a token, refuses a wrong one, and names the project in the header', async () => {
    const context = await session.browser.newContext();
    const outside = recordOutsideRequests(context);
    const tab = await context.newPage();
    await tab.goto(session.server.url + '/');
    await tab.getByLabel('Token', { exact: true }).fill('not-a-real-token-0123456789');
    await tab.getByRole('button', { name: 'Use token' }).click();
    const tokenForm = tab.getByRole('form', { name: 'Sign in with a token' });
    await expect.poll(() => tokenForm.getByRole('alert').textContent(), { timeout: scaled(15_000) }).toBeTruthy();
    expect(await tab.evaluate(() => sessionStorage.getItem('ferrum.token'))).toBeNull();

    await tab.getByLabel('Token', { exact: true }).fill(session.server.token);
    await tab.getByRole('button', { name: 'Use token' }).click();
    const project = (await session.server.http.get(`/1/projects/${session.server.projectId}`)).body;
    await expect
      .poll(() => tab.locator('#session .project').textContent(), { timeout: scaled(15_000) })
      .toBe(`Project ${project.name}`);
    expect(await tab.locator('#session .project').getAttribute('title')).toBe(session.server.projectId);
    await screenshot(tab, 'operations-token-sign-in');
    expect(outside).toEqual([]);
    await context.close();
  });

  it('refreshes a list page live', async () => {
    await session.navTo('Queues');
    await session.page.getByRole('heading', { name: 'Queues' }).waitFor();
    const queue = uniqueQueue('appears-live');
    await mq.postBodies(queue, 'hello');
    await expect
      .poll(() => session.page.locator('main table').textContent(), { timeout: scaled(20_000) })
      .toContain(queue);
    await screenshot(session.page, 'operations-live-refresh');
  });

  it('retries and cancels the selected tasks after confirmation', async () => {
    await worker.upload({ name: 'bulk', image: 'ferrum-test/busybox' });
    const [first, second] = await Promise.all([worker.queue('bulk', 'a'), worker.queue('bulk', 'b')]);
    await session.navTo('Tasks');
    await session.page.getByRole('heading', { name: 'Tasks' }).waitFor();
    await session.page.getByLabel(`Select task ${first}`).check();
    await session.page.getByLabel(`Select task ${second}`).check();
    await screenshot(session.page, 'operations-bulk-selection');
    await session.page.getByRole('button', { name: 'Cancel selected' }).click();
    await expect.poll(async () => (await worker.task(first)).status, { timeout: scaled(15_000) }).toBe('cancelled');
    await expect.poll(async () => (await worker.task(second)).status, { timeout: scaled(15_000) }).toBe('cancelled');

    await session.page.getByLabel(`Select task ${first}`).waitFor();
    await session.page.getByLabel(`Select task ${first}`).check();
    await session.page.getByRole('button', { name: 'Retry selected' }).click();
    // Only the checked task is retried: a new task of the same package, queued.
    const bulkTasks = async () => (await session.server.http.get(worker.path('/tasks?code_name=bulk'))).body.tasks;
    await expect.poll(async () => (await bulkTasks()).length, { timeout: scaled(15_000) }).toBe(3);
    const retried = (await bulkTasks()).find((task: any) => task.id !== first && task.id !== second);
    expect(retried.status).toBe('queued');
    await expect
      .poll(() => session.page.getByRole('status').last().textContent(), { timeout: scaled(15_000) })
      .toContain('Retry: 1 done');
    expect((await session.server.http.post(worker.path(`/tasks/${retried.id}/cancel`))).status).toBe(200);
  });

  it("shows a queue's dead letters, moves one back and deletes another", async () => {
    const source = uniqueQueue('with-dead-letters');
    const dead = uniqueQueue('dead');
    expect((await mq.createQueue(source, { dead_letter: { queue_name: dead, max_reservations: 1 } })).status).toBe(200);
    await mq.postBodies(source, 'poisoned one', 'poisoned two');
    for (const _message of [1, 2]) {
      const [message] = await mq.reserve(source);
      await mq.http.post(mq.path(source, `/messages/${message.id}/release`), {
        reservation_id: message.reservation_id,
      });
    }
    await expect.poll(async () => (await mq.reserve(source, { n: 2 })).length, { timeout: scaled(15_000) }).toBe(0);
    await expect.poll(async () => (await mq.info(dead)).size, { timeout: scaled(15_000) }).toBe(2);

    await session.page.goto(`${session.server.url}/#/queues/${encodeURIComponent(source)}`);
    await session.page.getByRole('button', { name: 'Show dead letters' }).click();
    const list = session.page.locator('#dead-letters');
    await expect.poll(() => list.textContent(), { timeout: scaled(15_000) }).toContain('poisoned two');
    await screenshot(session.page, 'operations-dead-letters');
    const rows = await mq.peek(dead, 2);
    const one = rows.find((message: any) => message.body === 'poisoned one');
    const two = rows.find((message: any) => message.body === 'poisoned two');

    await session.page.getByRole('button', { name: `Move message ${one.id} back to ${source}` }).click();
    await expect.poll(() => list.textContent(), { timeout: scaled(15_000) }).not.toContain('poisoned one');
    expect((await mq.peek(source, 5)).map((message: any) => message.body)).toEqual(['poisoned one']);

    await session.page.getByRole('button', { name: `Delete dead letter ${two.id}` }).click();
    await expect.poll(() => list.textContent(), { timeout: scaled(15_000) }).toContain('No dead letters.');
    expect((await mq.info(dead)).size).toBe(0);
  });
});
