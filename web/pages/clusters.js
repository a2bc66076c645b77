import { api } from '../api.js';
import { h, table, time } from '../dom.js';

export async function clustersPage() {
  const { clusters } = await api('GET', '/2/clusters');
  return h(
    'section',
    {},
    h('h1', {}, 'Clusters'),
    table(['Name', 'Id', 'Memory per runner'], clusters.map((c) => [
      h('a', { href: `#/clusters/${c.id}` }, c.name),
      h('code', {}, c.id),
      c.memory ? `${Math.round(c.memory / 1048576)} MiB` : '',
    ]), { empty: 'No clusters: tasks run on the default cluster.' }),
  );
}

export async function clusterPage(_navigate, id) {
  const { cluster } = await api('GET', `/2/clusters/${encodeURIComponent(id)}/stats`);
  return h(
    'section',
    {},
    h('p', {}, h('a', { href: '#/clusters' }, '← Clusters')),
    h('h1', {}, 'Cluster ', h('code', {}, id)),
    h('dl', { class: 'facts' },
      h('dt', {}, 'Queued tasks'), h('dd', {}, String(cluster.queued ?? 0)),
      h('dt', {}, 'Runners'), h('dd', {}, `${cluster.runners_available ?? 0} available of ${cluster.runners_total ?? 0}`),
      h('dt', {}, 'Load (ewma)'), h('dd', {}, String(cluster.ewma ?? 0))),
    h('h2', {}, 'Instances'),
    table(['Instance', 'State', 'Runners', 'Created', 'Updated'], (cluster.instances || []).map((i) => [
      h('code', {}, i.instance_id), i.type, `${i.runners_available} / ${i.runners_total}`, time(i.created_at), time(i.updated_at),
    ]), { empty: 'No instances.' }),
  );
}
