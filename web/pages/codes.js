// @ts-check
import { worker } from '../client.js';
import { confirmedButton, h, table, time, toast } from '../dom.js';
/** @typedef {import('../types').Code} Code */

const STATUSES = ['queued', 'preparing', 'running', 'complete', 'error', 'cancelled', 'timeout'];
/** The API shows a package whose task queue is paused with max_concurrency -1. @param {Code} code */
const isPaused = (code) => code.max_concurrency === -1;

export async function codesPage() {
  const codes = await worker.codes({ per_page: 100 });
  return h(
    'section',
    {},
    h('h1', {}, 'Code packages'),
    table(
      ['Name', 'Image', 'Revision', 'Task queue', 'Last change'],
      codes.map((code) => [
        h('a', { href: `#/codes/${code.id}` }, code.name),
        h('code', {}, code.image || code.stack || ''),
        String(code.rev),
        isPaused(code) ? 'paused' : 'running',
        time(code.latest_change),
      ]),
      { empty: 'No code packages yet: upload one with a worker client or the ferrum CLI.' },
    ),
  );
}

/** @param {(hash: string) => void} navigate @param {string} id */
export async function codePage(navigate, id) {
  const [code, revisions, stats] = await Promise.all([
    worker.code(id),
    worker.revisions(id),
    worker.codeStats(id).catch(() => null),
  ]);
  const paused = isPaused(code);
  return h(
    'section',
    {},
    h('p', {}, h('a', { href: '#/codes' }, '← Code packages')),
    h('h1', {}, code.name),
    h(
      'dl',
      { class: 'facts', id: 'code-facts' },
      h('dt', {}, 'Id'),
      h('dd', {}, h('code', {}, code.id)),
      h('dt', {}, 'Image'),
      h('dd', {}, code.image || '—'),
      h('dt', {}, 'Command'),
      h('dd', {}, code.command || '—'),
      h('dt', {}, 'Revision'),
      h('dd', {}, String(code.rev)),
      h('dt', {}, 'Task queue'),
      h('dd', {}, paused ? 'paused: queued tasks wait until it is resumed' : 'running'),
      h('dt', {}, 'Max concurrency'),
      h('dd', {}, code.max_concurrency && !paused ? String(code.max_concurrency) : 'no limit'),
      h('dt', {}, 'Retries'),
      h('dd', {}, `${code.retries || 0} (delay ${code.retries_delay || 0} s)`),
    ),
    codeActions(code, paused, navigate),
    h('p', {}, h('a', { href: `#/tasks?code_name=${encodeURIComponent(code.name)}` }, 'Tasks of this package →')),
    h('h2', {}, 'Tasks in the last 24 hours'),
    stats
      ? table(STATUSES, [STATUSES.map((status) => String(stats[status] ?? 0))])
      : h('p', { class: 'empty' }, 'Statistics are not available.'),
    h('h2', {}, 'Revisions'),
    table(
      ['Revision', 'Image', 'Uploaded'],
      revisions.map((rev) => [String(rev.rev), rev.image || '', time(rev.created_at)]),
    ),
  );
}

/** Pause or resume the package's task queue; delete the package. Each asks first. */
function codeActions(
  /** @type {Code} */ code,
  /** @type {boolean} */ paused,
  /** @type {(hash: string) => void} */ navigate,
) {
  const reload = () => navigate(`#/codes/${encodeURIComponent(code.id)}`);
  const verb = paused ? 'Resume' : 'Pause';
  return h(
    'div',
    { class: 'actions' },
    confirmedButton(`${verb} task queue`, `${verb} the task queue of ${code.name}?`, async () => {
      await (paused ? worker.resume(code.id) : worker.pause(code.id));
      toast(`${paused ? 'Resumed' : 'Paused'} ${code.name}`);
      reload();
    }),
    confirmedButton(
      'Delete package',
      `Delete code package ${code.name} with all its revisions? This cannot be undone.`,
      async () => {
        await worker.deleteCode(code.id);
        toast(`Deleted ${code.name}`);
        navigate('#/codes');
      },
      { danger: true },
    ),
  );
}
