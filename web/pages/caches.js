// @ts-check
import { cache } from '../client.js';
import { confirmedButton, field, form, h, table, toast } from '../dom.js';

/** @param {unknown} _navigate @param {string | undefined} _id @param {URLSearchParams} params */
export async function cachesPage(_navigate, _id, params) {
  const page = Number(params.get('page') || 0);
  const list = await cache.list(page);
  const sizes = await Promise.all(
    list.map((item) =>
      cache.get(item.name).then(
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
      list.map((item, i) => [
        h('a', { href: `#/caches/${encodeURIComponent(item.name)}` }, item.name),
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

/** @param {(hash: string) => void} navigate @param {string} name */
export async function cachePage(navigate, name) {
  const info = await cache.get(name);
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
        const item = await cache.item(name, key);
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
    cacheActions(navigate, name),
  );
}

/** Clear the cache or delete it, each after confirmation. @param {(hash: string) => void} navigate @param {string} name */
function cacheActions(navigate, name) {
  return [
    h('h2', {}, 'Clear'),
    confirmedButton(
      'Clear cache',
      `Remove every item of ${name}? This cannot be undone.`,
      async () => {
        await cache.clear(name);
        toast(`Cleared ${name}`);
        navigate(`#/caches/${encodeURIComponent(name)}`);
      },
      { danger: true },
    ),
    h('h2', {}, 'Delete'),
    confirmedButton(
      'Delete cache',
      `Delete cache ${name} and all its items? This cannot be undone.`,
      async () => {
        await cache.remove(name);
        toast(`Deleted cache ${name}`);
        navigate('#/caches');
      },
      { danger: true },
    ),
  ];
}
