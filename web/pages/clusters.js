// @ts-check
import { ApiError, session } from '../api.js';
import { clusters as clusterApi, identity, worker } from '../client.js';
import { errorBox, field, form, h, table, time, toast } from '../dom.js';

const MIB = 1024 * 1024;
const GIB = 1024 * MIB;
const INSTANCE_STATES = {
  ADD: 'starting',
  LIVE: 'running jobs',
  KILL: 'draining',
  TERMINATE: 'terminated',
};

const bytes = (value, unit, suffix) => (value ? `${Math.round(value / unit)} ${suffix}` : '');

export async function clustersPage(navigate) {
  const clusters = await clusterApi.list();
  return h(
    'section',
    {},
    h('h1', {}, 'Clusters'),
    table(
      ['Name', 'Id', 'Memory per runner', 'Disk per runner'],
      clusters.map((c) => [
        h('a', { href: `#/clusters/${encodeURIComponent(c.id)}` }, c.name),
        h('code', {}, c.id),
        bytes(c.memory, MIB, 'MiB'),
        bytes(c.disk ?? c.disk_space, GIB, 'GiB'),
      ]),
      { empty: 'No clusters of yours yet.' },
    ),
    h(
      'p',
      {},
      'Tasks that name no cluster run on the ',
      h('a', { href: '#/clusters/default' }, 'default cluster'),
      '.',
    ),
    h('h2', {}, 'New cluster'),
    form(
      createFields(),
      'Create cluster',
      async (values, el) => {
        const created = await clusterApi.create(createRequest(values));
        el.reset();
        const id = created?.id;
        toast(`Created ${values.name}`);
        navigate(id ? `#/clusters/${encodeURIComponent(id)}` : '#/clusters');
      },
      { 'aria-label': 'New cluster' },
    ),
  );
}

const PROVIDERS = [
  ['static', 'none: runners register themselves'],
  ['docker', 'Docker: runner containers on this machine'],
  ['aws', 'AWS: EC2 instances'],
];

function createFields() {
  const providerId = 'f-provider';
  return [
    field('Cluster name', { name: 'name', required: true }),
    field('Memory per runner (MiB)', { name: 'memory', type: 'number', min: 1, placeholder: '512' }),
    field('Disk per runner (GiB)', { name: 'disk', type: 'number', min: 1, placeholder: '10' }),
    field('Share with (e-mails, comma-separated)', { name: 'shared_to', placeholder: 'ada@example.com' }),
    h(
      'fieldset',
      {},
      h('legend', {}, 'Autoscaling'),
      h('label', { for: providerId }, 'Instances from'),
      h(
        'select',
        { id: providerId, name: 'provider' },
        PROVIDERS.map(([value, label]) => h('option', { value }, label)),
      ),
      field('Minimum runners', { name: 'runners_min', type: 'number', min: 0 }),
      field('Maximum runners', { name: 'runners_max', type: 'number', min: 0 }),
      field('Runners per instance', { name: 'runners_per_instance', type: 'number', min: 1 }),
    ),
    h(
      'fieldset',
      {},
      h('legend', {}, 'AWS (only for instances from AWS)'),
      field('AWS region', { name: 'region', placeholder: 'us-east-1' }),
      field('Instance type', { name: 'instance_type', placeholder: 'c3.xlarge' }),
      field('Access key id', { name: 'access_key_id', autocomplete: 'off' }),
      field('Secret access key', { name: 'secret_access_key', type: 'password', autocomplete: 'off' }),
      field('Docker registry auth', { name: 'docker_auth', type: 'password', autocomplete: 'off' }),
      field('Docker registry e-mail', { name: 'docker_email', type: 'email' }),
    ),
  ];
}

/** Form values → the create request; empty fields are left out so the API applies its defaults. */
function createRequest(values) {
  const request = { name: values.name };
  if (values.memory) request.memory = Number(values.memory) * MIB;
  if (values.disk) request.disk = Number(values.disk) * GIB;
  const sharedTo = values.shared_to
    .split(',')
    .map((email) => email.trim())
    .filter(Boolean);
  if (sharedTo.length) request.shared_to = sharedTo;
  const autoscale = { provider: values.provider };
  for (const key of ['runners_min', 'runners_max', 'runners_per_instance']) {
    if (values[key] !== '') autoscale[key] = Number(values[key]);
  }
  if (values.provider === 'aws') {
    // Only what was filled in: the API names whatever required field is missing.
    const filled = (keys) => Object.fromEntries(keys.filter((key) => values[key]).map((key) => [key, values[key]]));
    autoscale.aws = filled(['access_key_id', 'secret_access_key', 'region', 'instance_type']);
    Object.assign(autoscale, filled(['docker_auth', 'docker_email']));
  }
  request.autoscale = autoscale;
  return request;
}

export async function clusterPage(navigate, id) {
  const [config, { cluster: stats }] = await Promise.all([clusterApi.get(id), clusterApi.stats(id)]);
  const sharedTo = await Promise.all(
    (config.shared_to || []).map((userId) =>
      identity.user(userId).then(
        (user) => user.email,
        () => userId,
      ),
    ),
  );
  const instances = stats.instances || [];
  return h(
    'section',
    {},
    h('p', {}, h('a', { href: '#/clusters' }, '← Clusters')),
    h('h1', {}, config.name || 'Cluster'),
    h('h2', {}, 'Configuration'),
    h('dl', { class: 'facts', id: 'cluster-config' }, configFacts(config, sharedTo)),
    h('h2', {}, 'Current state'),
    h(
      'dl',
      { class: 'facts', id: 'cluster-stats' },
      h('dt', {}, 'Queued tasks'),
      h('dd', {}, String(stats.queued ?? 0)),
      h('dt', {}, 'Runners'),
      h('dd', {}, `${stats.runners_available ?? 0} available of ${stats.runners_total ?? 0}`),
      h('dt', {}, 'Load (ewma)'),
      h('dd', {}, formatLoad(stats.ewma)),
    ),
    h('h2', {}, 'Instances'),
    instancesTable(instances),
    await runnersSection(id),
    config.id === 'default' ? null : clusterActions(navigate, id, config),
  );
}

function instancesTable(instances) {
  return h(
    'div',
    { id: 'cluster-instances' },
    table(
      ['Instance', 'State', 'Runners available / total', 'Version', 'Created', 'Updated'],
      instances.map((i) => [
        h('code', {}, i.instance_id),
        h(
          'span',
          { class: `instance-${String(i.type).toLowerCase()}`, title: INSTANCE_STATES[i.type] || '' },
          `${i.type} (${INSTANCE_STATES[i.type] || 'unknown'})`,
        ),
        `${i.runners_available} / ${i.runners_total}`,
        i.version || '',
        time(i.created_at),
        time(i.updated_at),
      ]),
      { empty: 'No instances.' },
    ),
  );
}

// The runners table is drawn again every RUNNERS_MS while the cluster's page shows it.
const RUNNERS_MS = 3000;

/** What each runner of the cluster runs now, kept up to date; a failed refresh keeps what is shown. */
async function runnersSection(id) {
  const body = h('div', { id: 'cluster-runners' });
  const codeNames = new Map();
  let timer;
  const refresh = async () => {
    if (!document.body.contains(body) && timer) {
      clearInterval(timer);
      return { final: true };
    }
    const view = await runnersView(id, codeNames);
    body.replaceChildren(view.content);
    if (view.final && timer) clearInterval(timer);
    return view;
  };
  const first = await refresh().catch((error) => {
    body.replaceChildren(errorBox(error));
    return { final: false };
  });
  if (!first.final) timer = setInterval(() => refresh().catch(() => undefined), RUNNERS_MS);
  return [h('h2', {}, 'Runners'), body];
}

/** The runners table; `final` when there is nothing to refresh (the API refuses: not the cluster's owner). */
async function runnersView(id, codeNames) {
  let runners;
  try {
    runners = await clusterApi.runners(id);
  } catch (error) {
    if (!(error instanceof ApiError && error.status === 403)) throw error;
    return { final: true, content: h('p', { class: 'empty' }, "Only the cluster's owner sees its runners.") };
  }
  runners.sort((a, b) => String(a.instance_id).localeCompare(String(b.instance_id)));
  const taskIds = runners.flatMap((runner) => runner.tasks || []);
  await lookUpCodeNames(taskIds, codeNames);
  const content = table(
    ['Runner', 'Host', 'Version', 'Slots', 'Busy', 'Last heartbeat', 'Running now'],
    runners.map((runner) => [
      h('code', {}, runner.instance_id),
      runner.hostname || '',
      runner.version || '',
      String(runner.slots ?? ''),
      String(runner.busy ?? ''),
      h('span', { title: time(runner.updated_at) }, age(runner.updated_at)),
      runningTasks(runner.tasks || [], codeNames),
    ]),
    { empty: 'No runner is heartbeating in this cluster.' },
  );
  return { final: false, content };
}

/** Links to the tasks a runner runs now, each with its code name when known. */
function runningTasks(taskIds, codeNames) {
  if (taskIds.length === 0) return h('span', { class: 'empty' }, 'idle');
  return h(
    'ul',
    { class: 'runner-tasks' },
    taskIds.map((taskId) =>
      h(
        'li',
        {},
        h('a', { href: `#/tasks/${encodeURIComponent(taskId)}` }, h('code', {}, taskId)),
        codeNames.get(taskId) ? ` ${codeNames.get(taskId)}` : '',
      ),
    ),
  );
}

/**
 * Fills `codeNames` for the tasks not looked up yet. The lookup is in the current project: a task of
 * another project (or with no project chosen) keeps no name. A failure that is not an answer is tried again.
 */
async function lookUpCodeNames(taskIds, codeNames) {
  const unknown = taskIds.filter((taskId) => !codeNames.has(taskId));
  const lookUp = async (taskId) => {
    if (!session.projectId) return codeNames.set(taskId, '');
    try {
      const task = await worker.task(taskId);
      codeNames.set(taskId, task.code_name || '');
    } catch (error) {
      if (error instanceof ApiError) codeNames.set(taskId, '');
    }
  };
  await Promise.all(unknown.map(lookUp));
}

/** How long ago: "4 s ago", "3 min ago"; '' for no time. */
function age(value) {
  const at = Date.parse(value);
  if (Number.isNaN(at)) return '';
  const seconds = Math.max(0, Math.round((Date.now() - at) / 1000));
  if (seconds < 120) return `${seconds} s ago`;
  if (seconds < 7200) return `${Math.round(seconds / 60)} min ago`;
  return `${Math.round(seconds / 3600)} h ago`;
}

function clusterActions(navigate, id, config) {
  return [
    h('h2', {}, 'Actions'),
    h(
      'div',
      { class: 'actions' },
      h(
        'button',
        {
          class: 'danger',
          onclick: async () => {
            if (!confirm(`Terminate the instances of ${config.name}? Running jobs finish first.`)) return;
            const { msg } = await clusterApi.terminate(id);
            toast(msg || 'Instances terminating');
            navigate(`#/clusters/${encodeURIComponent(id)}`);
          },
        },
        'Terminate instances',
      ),
      h(
        'button',
        {
          class: 'danger',
          onclick: async () => {
            if (!confirm(`Delete cluster ${config.name}? This cannot be undone.`)) return;
            await clusterApi.remove(id);
            toast(`Deleted ${config.name}`);
            navigate('#/clusters');
          },
        },
        'Delete cluster',
      ),
    ),
  ];
}

/** The configuration as returned by the API; the API never returns secrets, and nothing here asks for them. */
function configFacts(config, sharedTo) {
  return [
    ['Id', h('code', {}, config.id)],
    ['Memory per runner', bytes(config.memory, MIB, 'MiB')],
    ['Disk per runner', bytes(config.disk ?? config.disk_space, GIB, 'GiB')],
    ['CPU share', config.cpu_share != null ? String(config.cpu_share) : ''],
    ['Owner', config.user_id ? h('code', {}, config.user_id) : ''],
    ['Shared to', sharedTo.length ? sharedTo.join(', ') : '—'],
    ['Autoscaling', autoscaleText(config.autoscale)],
  ].flatMap(([label, value]) => [h('dt', {}, label), h('dd', {}, value || '—')]);
}

const SECRET = /secret|password|auth|user_data/i;

/** Autoscale settings as one line, leaving out anything secret even if an API version returned it. */
function autoscaleText(autoscale) {
  if (!autoscale || typeof autoscale !== 'object') return 'off';
  const settings = { ...autoscale, ...(autoscale.aws || {}) };
  delete settings.aws;
  return (
    Object.entries(settings)
      .filter(([key, value]) => !SECRET.test(key) && value !== null && typeof value !== 'object')
      .map(([key, value]) => `${key}: ${value}`)
      .join(', ') || 'on'
  );
}

const formatLoad = (ewma) => (typeof ewma === 'number' ? ewma.toFixed(2) : '0');
