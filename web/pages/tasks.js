// @ts-check
import { worker } from '../client.js';
import { field, form, h, table, time, toast } from '../dom.js';
import { WaitReasons } from './task-wait.js';
/** @typedef {import('../types').Task} Task */

const STATUSES = ['queued', 'preparing', 'running', 'complete', 'error', 'cancelled', 'timeout'];
/** @param {string} status */
export const statusCell = (status) => h('span', { class: `status-${status}` }, status);
/** A link to a task. @param {string} id */
export const taskLink = (id) => h('a', { href: `#/tasks/${encodeURIComponent(id)}` }, h('code', {}, id));

/** @param {(hash: string) => void} navigate @param {string | undefined} _id @param {URLSearchParams} params */
export async function tasksPage(navigate, _id, params) {
  const page = Number(params.get('page') || 0);
  const codeName = params.get('code_name') || '';
  const status = params.get('status') || '';
  const tasks = await worker.tasks({ per_page: 30, page, code_name: codeName, ...(status ? { [status]: 1 } : {}) });
  const reasons = new WaitReasons();
  const messages = await Promise.all(tasks.map(async (task) => (await reasons.of(task)) || task.msg || ''));
  const filtered = (/** @type {Record<string, string>} */ changes) => {
    const next = new URLSearchParams({ code_name: codeName, status, ...changes });
    for (const [key, value] of [...next]) if (!value) next.delete(key);
    return `#/tasks?${next}`;
  };
  return h(
    'section',
    {},
    h('h1', {}, 'Tasks'),
    filterForm(codeName, status, (changes) => navigate(filtered(changes))),
    bulkActions(tasks, navigate),
    table(
      ['', 'Id', 'Code', 'Status', 'Message', 'Retry', 'Created', 'Duration'],
      tasks.map((task, i) => [
        h('input', { type: 'checkbox', class: 'select-task', value: task.id, 'aria-label': `Select task ${task.id}` }),
        taskLink(task.id),
        task.code_name,
        statusCell(task.status),
        h('span', { class: 'task-msg' }, messages[i]),
        retryLinks(task),
        time(task.created_at),
        task.duration !== undefined ? `${task.duration} ms` : '',
      ]),
      { empty: 'No tasks match.' },
    ),
    h(
      'nav',
      { class: 'pager', 'aria-label': 'Pages' },
      page > 0 ? h('a', { href: filtered({ page: String(page - 1) }) }, '« Previous page') : null,
      tasks.length === 30 ? h('a', { href: filtered({ page: String(page + 1) }) }, 'Next page »') : null,
    ),
    h('h2', {}, 'Queue a task'),
    form(
      [
        field('Code package name', { name: 'code_name', required: true, value: codeName }),
        field('Payload', { name: 'payload', multiline: true }),
      ],
      'Queue task',
      async ({ code_name: name, payload }) => {
        const id = await worker.queue(name, payload || '');
        toast('Task queued');
        navigate(`#/tasks/${id}`);
      },
    ),
  );
}

/**
 * The status applies with the Filter button (or Enter in the code field), so arrow keys in the list do not reload the page.
 * @param {string} codeName @param {string} status @param {(changes: Record<string, string>) => void} apply
 */
function filterForm(codeName, status, apply) {
  const statusSelect = h(
    'select',
    { id: 'status-filter' },
    h('option', { value: '' }, 'All statuses'),
    STATUSES.map((s) => h('option', { value: s, selected: s === status }, s)),
  );
  const codeInput = h('input', { id: 'code-filter', value: codeName, placeholder: 'code name' });
  return h(
    'form',
    {
      class: 'filters',
      'aria-label': 'Filter tasks',
      onsubmit: (/** @type {Event} */ e) => {
        e.preventDefault();
        apply({ code_name: codeInput.value.trim(), status: statusSelect.value, page: '' });
      },
    },
    h('label', { for: 'status-filter' }, 'Status'),
    statusSelect,
    h('label', { for: 'code-filter' }, 'Code package'),
    codeInput,
    h('button', { type: 'submit' }, 'Filter'),
  );
}

// Bulk actions apply to the selected tasks each may apply to: retry failed ones, cancel waiting ones.
const RETRYABLE = new Set(['error', 'timeout', 'cancelled']);
const CANCELLABLE = new Set(['queued', 'preparing', 'running']);

/** @param {Task[]} tasks @param {(hash: string) => void} navigate */
function bulkActions(tasks, navigate) {
  const byId = new Map(tasks.map((task) => [task.id, task]));
  const selected = (/** @type {Set<string>} */ statuses) =>
    [...document.querySelectorAll('input.select-task:checked')]
      .map((box) => byId.get(/** @type {HTMLInputElement} */ (box).value))
      .filter((task) => task && statuses.has(task.status));
  /** @param {string} verb @param {Set<string>} statuses @param {(id: string) => Promise<unknown>} action */
  const apply = async (verb, statuses, action) => {
    const chosen = selected(statuses);
    if (chosen.length === 0) return toast(`No selected task can be ${verb === 'Retry' ? 'retried' : 'cancelled'}`);
    if (!confirm(`${verb} ${chosen.length} task(s)?`)) return;
    const results = await Promise.allSettled(chosen.map((task) => action(task.id)));
    const failed = results.filter((result) => result.status === 'rejected').length;
    toast(`${verb}: ${chosen.length - failed} done${failed ? `, ${failed} failed` : ''}`, { error: failed > 0 });
    navigate(location.hash);
  };
  return h(
    'div',
    { class: 'actions', role: 'group', 'aria-label': 'Selected tasks' },
    h('button', { onclick: () => apply('Retry', RETRYABLE, worker.retry) }, 'Retry selected'),
    h('button', { class: 'danger', onclick: () => apply('Cancel', CANCELLABLE, worker.cancel) }, 'Cancel selected'),
  );
}

/** Links between an automatic (or manual) retry and the task it retried. @param {Task} task */
export function retryLinks(task) {
  return [
    task.original_task_id ? h('span', {}, 'retry of ', taskLink(task.original_task_id)) : null,
    task.original_task_id && task.retry_task_id ? h('br') : null,
    task.retry_task_id ? h('span', {}, 'retried as ', taskLink(task.retry_task_id)) : null,
  ];
}
