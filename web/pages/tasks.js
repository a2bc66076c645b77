import { api, projectPath } from '../api.js';
import { field, form, h, table, time, toast } from '../dom.js';

const worker = (rest) => projectPath('/2', rest);
const STATUSES = ['queued', 'preparing', 'running', 'complete', 'error', 'cancelled', 'timeout'];
const FINISHED = new Set(['complete', 'error', 'cancelled', 'timeout']);
const statusCell = (status) => h('span', { class: `status-${status}` }, status);

export async function tasksPage(navigate, _id, params) {
  const page = Number(params.get('page') || 0);
  const query = new URLSearchParams({ per_page: '30', page: String(page) });
  const codeName = params.get('code_name') || '';
  const status = params.get('status') || '';
  if (codeName) query.set('code_name', codeName);
  if (status) query.set(status, '1');
  const { tasks } = await api('GET', worker(`/tasks?${query}`));
  const filtered = (changes) => {
    const next = new URLSearchParams({ code_name: codeName, status, ...changes });
    for (const [key, value] of [...next]) if (!value) next.delete(key);
    return `#/tasks?${next}`;
  };
  // The status applies with the Filter button (or Enter in the code field), so arrow keys in the list do not reload the page.
  const statusSelect = h(
    'select',
    { id: 'status-filter' },
    h('option', { value: '' }, 'All statuses'),
    STATUSES.map((s) => h('option', { value: s, selected: s === status }, s)),
  );
  const codeInput = h('input', { id: 'code-filter', value: codeName, placeholder: 'code name' });
  return h(
    'section',
    {},
    h('h1', {}, 'Tasks'),
    h(
      'form',
      {
        class: 'filters',
        'aria-label': 'Filter tasks',
        onsubmit: (e) => {
          e.preventDefault();
          navigate(filtered({ code_name: codeInput.value.trim(), status: statusSelect.value, page: '' }));
        },
      },
      h('label', { for: 'status-filter' }, 'Status'),
      statusSelect,
      h('label', { for: 'code-filter' }, 'Code package'),
      codeInput,
      h('button', { type: 'submit' }, 'Filter'),
    ),
    bulkActions(tasks, navigate),
    table(
      ['', 'Id', 'Code', 'Status', 'Created', 'Duration'],
      tasks.map((task) => [
        h('input', { type: 'checkbox', class: 'select-task', value: task.id, 'aria-label': `Select task ${task.id}` }),
        h('a', { href: `#/tasks/${task.id}` }, h('code', {}, task.id)),
        task.code_name,
        statusCell(task.status),
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
        const queued = await api('POST', worker('/tasks'), { tasks: [{ code_name: name, payload: payload || '' }] });
        toast('Task queued');
        navigate(`#/tasks/${queued.tasks[0].id}`);
      },
    ),
  );
}

// Bulk actions apply to the selected tasks each may apply to: retry failed ones, cancel waiting ones.
const RETRYABLE = new Set(['error', 'timeout', 'cancelled']);
const CANCELLABLE = new Set(['queued', 'preparing', 'running']);

function bulkActions(tasks, navigate) {
  const byId = new Map(tasks.map((task) => [task.id, task]));
  const selected = (statuses) =>
    [...document.querySelectorAll('input.select-task:checked')]
      .map((box) => byId.get(box.value))
      .filter((task) => task && statuses.has(task.status));
  const apply = async (verb, statuses, path) => {
    const chosen = selected(statuses);
    if (chosen.length === 0) return toast(`No selected task can be ${verb === 'Retry' ? 'retried' : 'cancelled'}`);
    if (!confirm(`${verb} ${chosen.length} task(s)?`)) return;
    const results = await Promise.allSettled(chosen.map((task) => api('POST', worker(`/tasks/${task.id}${path}`), {})));
    const failed = results.filter((result) => result.status === 'rejected').length;
    toast(`${verb}: ${chosen.length - failed} done${failed ? `, ${failed} failed` : ''}`, { error: failed > 0 });
    navigate(location.hash);
  };
  return h(
    'div',
    { class: 'actions', role: 'group', 'aria-label': 'Selected tasks' },
    h('button', { onclick: () => apply('Retry', RETRYABLE, '/retry') }, 'Retry selected'),
    h('button', { class: 'danger', onclick: () => apply('Cancel', CANCELLABLE, '/cancel') }, 'Cancel selected'),
  );
}

export async function taskPage(navigate, id) {
  const base = `/tasks/${encodeURIComponent(id)}`;
  const facts = h('dl', { class: 'facts', id: 'task-facts' });
  const log = h('pre', { class: 'log', id: 'task-log', 'aria-live': 'polite' });
  const actions = h('div', { class: 'actions' });
  let timer;
  const refresh = async () => {
    if (!document.body.contains(log) && timer) return clearInterval(timer);
    const task = await api('GET', worker(base));
    facts.replaceChildren(
      ...[
        h('dt', {}, 'Status'),
        h('dd', {}, statusCell(task.status)),
        h('dt', {}, 'Code'),
        h('dd', {}, `${task.code_name} (revision ${task.code_rev})`),
        h('dt', {}, 'Created'),
        h('dd', {}, time(task.created_at)),
        h('dt', {}, 'Started'),
        h('dd', {}, time(task.start_time)),
        h('dt', {}, 'Ended'),
        h('dd', {}, time(task.end_time)),
        h('dt', {}, 'Duration'),
        h('dd', {}, task.duration !== undefined ? `${task.duration} ms` : ''),
        h('dt', {}, 'Message'),
        h('dd', {}, task.msg || ''),
        task.percent != null ? [h('dt', {}, 'Progress'), h('dd', {}, `${task.percent}%`)] : null,
        optionalFacts(task),
        h('dt', {}, 'Payload'),
        h('dd', {}, h('pre', {}, task.payload || '')),
      ]
        .flat()
        .filter(Boolean),
    );
    log.textContent = await api('GET', worker(`${base}/log`), undefined, { accept: 'text/plain' }).catch(() => '');
    actions.replaceChildren(
      FINISHED.has(task.status)
        ? h(
            'button',
            {
              onclick: async () => {
                const r = await api('POST', worker(`${base}/retry`), {});
                toast('Retried');
                navigate(`#/tasks/${r.tasks[0].id}`);
              },
            },
            'Retry',
          )
        : h(
            'button',
            {
              class: 'danger',
              onclick: async () => {
                await api('POST', worker(`${base}/cancel`), {});
                toast('Cancelled');
                await refresh();
              },
            },
            'Cancel',
          ),
    );
    if (FINISHED.has(task.status) && timer) {
      clearInterval(timer);
      timer = undefined;
    }
    return task;
  };
  const task = await refresh();
  if (!FINISHED.has(task.status)) timer = setInterval(() => refresh().catch(() => undefined), 1000);
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

/** The task's optional fields that it has. */
function optionalFacts(task) {
  return OPTIONAL_FACTS.filter(([key]) => task[key] !== undefined && task[key] !== null && task[key] !== '').flatMap(
    ([key, label]) => [h('dt', {}, label), h('dd', {}, String(task[key]))],
  );
}
