import { beforeAll, describe, expect, it } from 'vitest';
import { screenshot } from '../../helpers/browser.js';
import { MqClient, uniqueQueue } from '../../helpers/mq.js';
import { useDashboard } from '../../helpers/dashboard.js';
import { WorkerClient } from '../../helpers/worker.js';
import { scaled } from '../../helpers/pace.js';

// Running a queue, a cache and a code package from the dashboard: every action through the UI,
// confirmed, its result read back through the API. No runner: queued tasks stay queued.
const session = useDashboard();
let mq: MqClient;
let worker: WorkerClient;
const dialogs: string[] = [];
const waitUp = { timeout: scaled(15_000) };

beforeAll(() => {
  mq = new MqClient(session.server.http, session.server.projectId);
  worker = new WorkerClient(session.server.http, session.server.projectId);
  session.page.on('dialog', (dialog) => {
    dialogs.push(dialog.message());
    void dialog.accept();
  });
});

const main = () => session.page.locator('main');
const fact = (term: string) =>
  session.page.locator('dl.facts dt', { hasText: new RegExp(`^${term}$`) }).locator('xpath=following-sibling::dd[1]');
const open = async (hash: string, heading: string | RegExp) => {
  await session.page.goto(`${session.server.url}/#/${hash}`);
  await session.page.getByRole('heading', { name: heading, level: 1 }).waitFor(waitUp);
};

describe('queues in the dashboard', () => {
  it('shows ready, reserved and delayed counts, and in and out rates', async () => {
    const queue = uniqueQueue('counts');
    await mq.postBodies(queue, ...Array.from({ length: 7 }, (_, i) => `m${i}`));
    await mq.post(queue, [{ body: 'later', delay: 600 }]);
    await mq.reserve(queue, { n: 5, timeout: 600 });
    await open(`queues/${queue}`, queue);
    expect(await fact('Ready').textContent()).toBe('2');
    expect(await fact('Reserved').textContent()).toBe('5');
    expect(await fact('Delayed').textContent()).toBe('1');
    // The page reads the queue again for its rates while it is shown.
    await expect.poll(() => fact('Rates \\(in / out\\)').textContent(), waitUp).toMatch(/^[\d.]+\/s \/ [\d.]+\/s$/);

    await open('queues', 'Queues');
    const row = session.page.locator('tr', { has: session.page.getByRole('link', { name: queue, exact: true }) });
    expect((await row.locator('td').allTextContents()).slice(0, 6)).toEqual([queue, 'pull', '2', '5', '1', '8']);
    // The list refreshes live; messages posted and deleted between two reads give the rates.
    const ids = await mq.postBodies(queue, 'a', 'b', 'c', 'd');
    await mq.http.delete(mq.path(queue, '/messages'), { ids: ids.map((id) => ({ id })) });
    const rates = async () => (await row.locator('td').allTextContents()).slice(6);
    await expect
      .poll(async () => (await rates()).map((text) => parseFloat(text) > 0), { timeout: scaled(20_000) })
      .toEqual([true, true]);
    expect(await rates()).toEqual([expect.stringMatching(/^[\d.]+\/s$/), expect.stringMatching(/^[\d.]+\/s$/)]);
    await screenshot(session.page, 'actions-queue-rates');
  });

  it('edits the settings, handles one message (delete, reserve, touch, release) and deletes the queue', async () => {
    const queue = uniqueQueue('managed');
    await mq.postBodies(queue, 'one', 'two', 'three');
    await open(`queues/${queue}`, queue);
    const timeoutField = session.page.getByLabel('Message timeout (s)');
    await timeoutField.fill('120');
    const formBeforeSave = await timeoutField.elementHandle();
    await session.page.getByRole('button', { name: 'Save settings' }).click();
    await expect.poll(async () => (await mq.info(queue)).message_timeout, waitUp).toBe(120);
    // A save re-renders the page, which would wipe what a Peek clicked before it had shown.
    await formBeforeSave!.waitForElementState('hidden', waitUp);

    await session.page.getByRole('button', { name: 'Peek' }).click();
    const [first] = await mq.peek(queue);
    await session.page.getByRole('button', { name: `Delete message ${first.id}` }).click();
    await expect.poll(async () => (await mq.info(queue)).size, waitUp).toBe(2);

    await session.page.getByRole('button', { name: 'Reserve one' }).click();
    await expect.poll(async () => (await mq.info(queue)).reserved, waitUp).toBe(1);
    const held = session.page.locator('#reserved tbody tr');
    const heldId = (await held.locator('td').first().textContent())!;
    const reservation = () => held.locator('td').nth(2).textContent();
    const before = await reservation();
    await session.page.getByRole('button', { name: `Touch message ${heldId}` }).click();
    await expect.poll(reservation, waitUp).not.toBe(before);
    await session.page.getByRole('button', { name: `Release message ${heldId}` }).click();
    await expect.poll(async () => (await mq.info(queue)).reserved, waitUp).toBe(0);
    expect((await mq.info(queue)).size).toBe(2);

    await session.page.getByRole('button', { name: 'Reserve one' }).click();
    await session.page.locator('#reserved tbody tr').waitFor(waitUp);
    const second = (await session.page.locator('#reserved tbody tr td').first().textContent())!;
    await session.page.getByRole('button', { name: `Delete reserved message ${second}` }).click();
    await expect.poll(async () => (await mq.info(queue)).size, waitUp).toBe(1);

    await session.page.getByRole('button', { name: 'Delete queue' }).click();
    await session.page.getByRole('heading', { name: 'Queues', level: 1 }).waitFor(waitUp);
    expect((await mq.http.get(mq.path(queue))).status).toBe(404);
    expect(dialogs.some((text) => text.startsWith(`Delete queue ${queue}`))).toBe(true);
  });
});

describe('caches and code packages in the dashboard', () => {
  it('deletes a cache after confirmation', async () => {
    const caches = `/1/projects/${session.server.projectId}/caches`;
    await session.server.http.put(`${caches}/doomed/items/k`, { value: 'v' });
    await open('caches/doomed', 'doomed');
    await session.page.getByRole('button', { name: 'Delete cache' }).click();
    await session.page.getByRole('heading', { name: 'Caches', level: 1 }).waitFor(waitUp);
    expect((await session.server.http.get(`${caches}/doomed`)).status).toBe(404);
  });

  it('pauses and resumes a package (a queued task says why it waits) and deletes it', async () => {
    const codeId = await worker.upload({ name: 'pausable', image: 'ferrum-test/busybox' });
    const taskId = await worker.queue('pausable', 'p');
    await open(`tasks/${taskId}`, /Task/);
    await expect.poll(() => fact('Waiting').textContent(), waitUp).toMatch(/no runner serves cluster/);

    await open(`codes/${codeId}`, 'pausable');
    await session.page.getByRole('button', { name: 'Pause task queue' }).click();
    await expect
      .poll(async () => (await worker.http.get(worker.path(`/codes/${codeId}`))).body.max_concurrency, waitUp)
      .toBe(-1);
    await open(`tasks/${taskId}`, /Task/);
    await expect.poll(() => fact('Waiting').textContent(), waitUp).toMatch(/pausable is paused/);
    await open('tasks?code_name=pausable', 'Tasks');
    expect(await main().locator('.task-msg').first().textContent()).toMatch(/pausable is paused/);

    await open(`codes/${codeId}`, 'pausable');
    await session.page.getByRole('button', { name: 'Resume task queue' }).click();
    await expect
      .poll(async () => (await worker.http.get(worker.path(`/codes/${codeId}`))).body.max_concurrency, waitUp)
      .not.toBe(-1);

    await session.page.getByRole('button', { name: 'Delete package' }).click();
    await session.page.getByRole('heading', { name: 'Code packages', level: 1 }).waitFor(waitUp);
    expect((await worker.http.get(worker.path(`/codes/${codeId}`))).status).toBe(404);
  });
});

describe('tasks in the dashboard', () => {
  it('cancels and retries a task; the list shows its message and the retry links both ways', async () => {
    await worker.upload({ name: 'retried', image: 'ferrum-test/busybox' });
    const original = await worker.queue('retried', 'p');
    await open(`tasks/${original}`, /Task/);
    await session.page.getByRole('button', { name: 'Cancel' }).click();
    await expect.poll(async () => (await worker.task(original)).status, waitUp).toBe('cancelled');

    await session.page.getByRole('button', { name: 'Retry' }).waitFor(waitUp);
    await session.page.getByRole('button', { name: 'Retry' }).click();
    await expect.poll(async () => (await worker.task(original)).retry_task_id, waitUp).toBeTruthy();
    const retry = (await worker.task(original)).retry_task_id;
    await expect.poll(() => fact('Retries').textContent(), waitUp).toBe(`retry of ${original}`);

    await open('tasks?code_name=retried', 'Tasks');
    const row = (id: string) => main().locator('tr', { has: session.page.getByLabel(`Select task ${id}`) });
    expect(await row(original).textContent()).toContain(`retried as ${retry}`);
    expect(await row(retry).textContent()).toContain(`retry of ${original}`);
    const { msg } = await worker.task(original);
    if (msg) expect(await row(original).locator('.task-msg').textContent()).toBe(msg);
    await session.page.getByRole('link', { name: retry }).first().click();
    await session.page.getByRole('heading', { name: `Task ${retry}` }).waitFor(waitUp);
    await screenshot(session.page, 'actions-task-retry');
    expect((await session.server.http.post(worker.path(`/tasks/${retry}/cancel`))).status).toBe(200);
  });
});
