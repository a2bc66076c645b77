// @ts-check
import { worker } from '../client.js';
import { confirmedButton, h, time, toast } from '../dom.js';
import { WaitReasons } from './task-wait.js';
import { retryLinks, statusCell } from './tasks.js';
/** @typedef {import('../types').Task} Task */

const FINISHED = new Set(['complete', 'error', 'cancelled', 'timeout']);

/**
 * One task, refreshed every second until it ends: its facts, why it waits, its log.
 * @param {(hash: string) => void} navigate @param {string} id
 */
export async function taskPage(navigate, id) {
  const facts = h('dl', { class: 'facts', id: 'task-facts' });
  const log = h('pre', { class: 'log', id: 'task-log', 'aria-live': 'polite' });
  const actions = h('div', { class: 'actions' });
  /** @type {ReturnType<typeof setInterval> | undefined} */
  let timer;
  const refresh = async () => {
    if (!document.body.contains(log) && timer) return clearInterval(timer);
    const task = await worker.task(id);
    const waiting = await new WaitReasons().of(task);
    facts.replaceChildren(...taskFacts(task, waiting));
    log.textContent = await worker.log(id).catch(() => '');
    actions.replaceChildren(taskAction(task, navigate, refresh));
    if (FINISHED.has(task.status) && timer) {
      clearInterval(timer);
      timer = undefined;
    }
    return task;
  };
  const task = await refresh();
  if (task && !FINISHED.has(task.status)) timer = setInterval(() => refresh().catch(() => undefined), 1000);
  return h(
    'section',
    {},
    h('p', {}, h('a', { href: '#/tasks' }, '← Tasks')),
    h('h1', {}, 'Task ', h('code', {}, id)),
    facts,
    actions,
    h('h2', {}, 'Log'),
    log,
  );
}

/** Retry a finished task, cancel another, after confirmation. @param {Task} task */
function taskAction(
  task,
  /** @type {(hash: string) => void} */ navigate,
  /** @type {() => Promise<unknown>} */ refresh,
) {
  if (FINISHED.has(task.status))
    return confirmedButton('Retry', `Retry task ${task.id}?`, async () => {
      const retryId = await worker.retry(task.id);
      toast('Retried');
      navigate(`#/tasks/${retryId}`);
    });
  return confirmedButton(
    'Cancel',
    `Cancel task ${task.id}?`,
    async () => {
      await worker.cancel(task.id);
      toast('Cancelled');
      await refresh();
    },
    { danger: true },
  );
}

/** @param {Task} task @param {string} waiting */
function taskFacts(task, waiting) {
  const retries = retryLinks(task).filter(Boolean);
  return [
    ['Status', statusCell(task.status)],
    waiting ? ['Waiting', h('span', { class: 'task-wait' }, waiting)] : null,
    ['Code', `${task.code_name} (revision ${task.code_rev})`],
    ['Created', time(task.created_at)],
    ['Started', time(task.start_time)],
    ['Ended', time(task.end_time)],
    ['Duration', task.duration !== undefined ? `${task.duration} ms` : ''],
    ['Message', task.msg || ''],
    retries.length ? ['Retries', retries] : null,
    task.percent != null ? ['Progress', `${task.percent}%`] : null,
    ...OPTIONAL_FACTS.filter(([key]) => task[key] !== undefined && task[key] !== null && task[key] !== '').map(
      ([key, label]) => [label, String(task[key])],
    ),
    ['Payload', h('pre', {}, task.payload || '')],
  ]
    .filter(Boolean)
    .flatMap(([term, value]) => [h('dt', {}, term), h('dd', {}, value)]);
}

const OPTIONAL_FACTS = [
  ['priority', 'Priority'],
  ['timeout', 'Timeout (s)'],
  ['delay', 'Delay (s)'],
  ['retry_count', 'Retries so far'],
  ['cluster', 'Cluster'],
  ['runner_id', 'Runner'],
  ['runner_host', 'Runner host'],
  ['label', 'Label'],
  ['schedule_id', 'Schedule'],
  ['log_size', 'Log size (bytes)'],
];
