import { api, projectPath } from '../api.js';
import { h, table, time } from '../dom.js';

const worker = (rest) => projectPath('/2', rest);
const STATUSES = ['queued', 'preparing', 'running', 'complete', 'error', 'cancelled', 'timeout'];

export async function codesPage() {
  const { codes } = await api('GET', worker('/codes?per_page=100'));
  return h(
    'section',
    {},
    h('h1', {}, 'Code packages'),
    table(
      ['Name', 'Image', 'Revision', 'Last change'],
      codes.map((code) => [
        h('a', { href: `#/codes/${code.id}` }, code.name),
        h('code', {}, code.image || code.stack || ''),
        String(code.rev),
        time(code.latest_change),
      ]),
      { empty: 'No code packages yet: upload one with a worker client or the ferrum CLI.' },
    ),
  );
}

export async function codePage(_navigate, id) {
  const base = `/codes/${encodeURIComponent(id)}`;
  const [code, { revisions }, stats] = await Promise.all([
    api('GET', worker(base)),
    api('GET', worker(`${base}/revisions?per_page=100`)),
    api('GET', worker(`${base}/stats`)).catch(() => null),
  ]);
  return h(
    'section',
    {},
    h('p', {}, h('a', { href: '#/codes' }, '← Code packages')),
    h('h1', {}, code.name),
    h(
      'dl',
      { class: 'facts' },
      h('dt', {}, 'Id'),
      h('dd', {}, h('code', {}, code.id)),
      h('dt', {}, 'Image'),
      h('dd', {}, code.image || '—'),
      h('dt', {}, 'Command'),
      h('dd', {}, code.command || '—'),
      h('dt', {}, 'Revision'),
      h('dd', {}, String(code.rev)),
      h('dt', {}, 'Max concurrency'),
      h('dd', {}, code.max_concurrency ? String(code.max_concurrency) : 'no limit'),
      h('dt', {}, 'Retries'),
      h('dd', {}, `${code.retries || 0} (delay ${code.retries_delay || 0} s)`),
    ),
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
