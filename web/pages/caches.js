import { api, projectPath } from '../api.js';
import { field, form, h, table, toast } from '../dom.js';

const caches = (rest) => projectPath('/1', `/caches${rest}`);

export async function cachesPage(_navigate, _id, params) {
  const page = Number(params.get('page') || 0);
  const list = await api('GET', caches(`?page=${page}`));
  const sizes = await Promise.all(
    list.map((cache) =>
      api('GET', caches(`/${encodeURIComponent(cache.name)}`)).then(
        (c) => c.size,
        () => '?',
      ),
    ),
  );
  return h(
    'section',
    {},
    h('h1', {}, 'Caches'),
    table(
      ['Name', 'Items'],
      list.map((cache, i) => [
        h('a', { href: `#/caches/${encodeURIComponent(cache.name)}` }, cache.name),
        String(sizes[i]),
      ]),
      {
        empty: 'No caches yet: put an item to create one.',
      },
    ),
    h(
      'nav',
      { class: 'pager', 'aria-label': 'Pages' },
      page > 0 ? h('a', { href: `#/caches?page=${page - 1}` }, '« Previous page') : null,
      list.length === 100 ? h('a', { href: `#/caches?page=${page + 1}` }, 'Next page »') : null,
    ),
  );
}

export async function cachePage(navigate, name) {
  const base = `/${encodeURIComponent(name)}`;
  const info = await api('GET', caches(base));
  const found = h('div', { id: 'cache-item' });
  return h(
    'section',
    {},
    h('p', {}, h('a', { href: '#/caches' }, '← Caches')),
    h('h1', {}, name),
    h('p', {}, `${info.size} item(s)`),
    h('h2', {}, 'Look up a key'),
    form([field('Key', { name: 'key', required: true })], 'Look up', async ({ key }) => {
      try {
        const item = await api('GET', caches(`${base}/items/${encodeURIComponent(key)}`));
        found.replaceChildren(
          h(
            'dl',
            { class: 'facts' },
            h('dt', {}, 'Key'),
            h('dd', {}, item.key),
            h('dt', {}, 'Value'),
            h('dd', {}, h('pre', {}, JSON.stringify(item.value, null, 2))),
            h('dt', {}, 'CAS'),
            h('dd', {}, h('code', {}, String(item.cas))),
          ),
        );
      } catch (error) {
        if (error.status !== 404) throw error;
        found.replaceChildren(h('p', { class: 'empty' }, `No item under "${key}".`));
      }
    }),
    found,
    h('h2', {}, 'Clear'),
    h(
      'button',
      {
        class: 'danger',
        onclick: async () => {
          if (!confirm(`Remove every item of ${name}? This cannot be undone.`)) return;
          await api('POST', caches(`${base}/clear`), {});
          toast(`Cleared ${name}`);
          navigate(`#/caches/${encodeURIComponent(name)}`);
        },
      },
      'Clear cache',
    ),
  );
}
