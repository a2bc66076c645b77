// @ts-check
import { functions } from '../client.js';
import { errorBox, field, form, h, table, time, toast } from '../dom.js';

// The functions API keeps apps under /v1 and picks the project with ?project_id=.
const TYPES = ['sync', 'async'];
const FORMATS = ['default', 'http', 'json', 'http-stream'];
const MAX_CALLS = 30;

export async function appsPage(navigate, _id, params) {
  const cursor = params.get('cursor') || '';
  const { apps, next_cursor: nextCursor } = await functions.apps(cursor || undefined);
  return h(
    'section',
    {},
    h('h1', {}, 'Function apps'),
    h('p', {}, 'The apps your token can use; new apps go into the current project.'),
    table(
      ['Name', 'Project', 'Configuration', ''],
      apps.map((app) => [
        h('a', { href: `#/functions/${encodeURIComponent(app.name)}` }, app.name),
        h('code', {}, app.project_id || ''),
        configText(app.config),
        h(
          'button',
          {
            class: 'danger',
            'aria-label': `Delete app ${app.name}`,
            onclick: async () => {
              if (!confirm(`Delete app ${app.name} and its routes?`)) return;
              await functions.deleteApp(app.name);
              toast(`Deleted ${app.name}`);
              navigate('#/functions');
            },
          },
          'Delete',
        ),
      ]),
      { empty: 'No apps yet.' },
    ),
    h(
      'nav',
      { class: 'pager', 'aria-label': 'Pages' },
      cursor ? h('a', { href: '#/functions' }, '« First page') : null,
      nextCursor ? h('a', { href: `#/functions?cursor=${encodeURIComponent(nextCursor)}` }, 'Next page »') : null,
    ),
    h('h2', {}, 'New app'),
    form(
      [
        field('App name', { name: 'name', required: true }),
        field('App configuration (JSON object of strings)', {
          name: 'config',
          multiline: true,
          placeholder: '{"DB_URL": "…"}',
        }),
      ],
      'Create app',
      async ({ name, config }) => {
        await functions.createApp(name, parseConfig(config));
        toast(`Created ${name}`);
        navigate(`#/functions/${encodeURIComponent(name)}`);
      },
    ),
  );
}

export async function appPage(navigate, name) {
  const [{ routes }, calls] = await Promise.all([
    functions.routes(name),
    functions.calls(name, MAX_CALLS).then(
      (r) => r.calls,
      (error) => error,
    ),
  ]);
  const editor = h('div', { id: 'route-editor' });
  const callLog = h('div', { id: 'call-log' });
  const reload = () => navigate(`#/functions/${encodeURIComponent(name)}`);
  const routeRows = routes.map((route) => routeRow(name, route, editor, reload));
  return h(
    'section',
    {},
    h('p', {}, h('a', { href: '#/functions' }, '← Function apps')),
    h('h1', {}, name),
    h('h2', {}, 'Routes'),
    table(['Path', 'Image', 'Type', 'Format', 'Memory', 'Timeout', ''], routeRows, { empty: 'No routes yet.' }),
    editor,
    h('h2', {}, 'Recent calls'),
    calls instanceof Error ? errorBox(calls) : callTable(name, calls, callLog),
    callLog,
    h('h2', {}, 'New route'),
    form(
      routeFields({}),
      'Create route',
      async (values) => {
        await functions.createRoute(name, { path: values.path, ...routeSettings(values) });
        toast(`Created ${values.path}`);
        reload();
      },
      { 'aria-label': 'New route' },
    ),
  );
}

/** A route's row: its settings, with Edit (in `editor`) and Delete. */
function routeRow(name, route, editor, reload) {
  return [
    h('code', {}, route.path),
    h('code', {}, route.image),
    route.type || '',
    route.format || '',
    route.memory ? `${route.memory} MB` : '',
    route.timeout ? `${route.timeout} s` : '',
    h(
      'div',
      { class: 'actions' },
      h(
        'button',
        {
          'aria-label': `Edit route ${route.path}`,
          onclick: () => editor.replaceChildren(routeEditor(name, route, reload)),
        },
        'Edit',
      ),
      h(
        'button',
        {
          class: 'danger',
          'aria-label': `Delete route ${route.path}`,
          onclick: async () => {
            if (!confirm(`Delete route ${route.path}?`)) return;
            await functions.deleteRoute(name, route.path);
            toast(`Deleted ${route.path}`);
            reload();
          },
        },
        'Delete',
      ),
    ),
  ];
}

function callTable(app, calls, callLog) {
  const newestFirst = [...calls]
    .sort((a, b) => String(b.created_at).localeCompare(String(a.created_at)))
    .slice(0, MAX_CALLS);
  return table(
    ['Call', 'Route', 'Status', 'Created', 'Started', 'Completed', ''],
    newestFirst.map((call) => [
      h('code', {}, call.id),
      h('code', {}, call.path || ''),
      [
        h('span', { class: `status-${call.status}` }, call.status),
        call.error ? h('div', { class: 'error' }, call.error) : null,
      ],
      time(call.created_at),
      time(call.started_at),
      time(call.completed_at),
      h('button', { 'aria-label': `Log of call ${call.id}`, onclick: () => showLog(app, call.id, callLog) }, 'Log'),
    ]),
    { empty: 'No calls yet.', caption: 'Newest first' },
  );
}

async function showLog(app, callId, target) {
  try {
    const { log } = await functions.callLog(app, callId);
    target.replaceChildren(
      h('h3', {}, 'Log of call ', h('code', {}, callId)),
      log.log ? h('pre', { class: 'log' }, log.log) : h('p', { class: 'empty' }, 'Nothing logged (yet).'),
    );
  } catch (error) {
    target.replaceChildren(
      h('h3', {}, 'Log of call ', h('code', {}, callId)),
      error.status === 404 ? h('p', { class: 'empty' }, 'This call has no log.') : errorBox(error),
    );
  }
  target.querySelector('h3').tabIndex = -1;
  target.querySelector('h3').focus();
}

function routeEditor(app, route, reload) {
  const el = h(
    'div',
    {},
    h('h2', { tabindex: -1 }, 'Edit route ', h('code', {}, route.path)),
    form(
      routeFields(route),
      'Save route',
      async (values) => {
        await functions.updateRoute(app, route.path, routeSettings(values));
        toast(`Saved ${route.path}`);
        reload();
      },
      { 'aria-label': `Edit route ${route.path}` },
    ),
  );
  setTimeout(() => el.querySelector('h2').focus());
  return el;
}

function routeFields(route) {
  const editing = route.path !== undefined;
  return [
    editing ? null : field('Path', { name: 'path', required: true, placeholder: '/hello' }),
    field('Image', { name: 'image', required: true, value: route.image || '' }),
    select('Type', 'type', TYPES, route.type || 'sync'),
    select('Format', 'format', FORMATS, route.format || 'default'),
    field('Memory (MB)', { name: 'memory', type: 'number', min: 1, value: route.memory ?? '' }),
    field('Timeout (s)', { name: 'timeout', type: 'number', min: 1, value: route.timeout ?? '' }),
    field('Idle timeout (s)', { name: 'idle_timeout', type: 'number', min: 1, value: route.idle_timeout ?? '' }),
    field('Max concurrency', { name: 'max_concurrency', type: 'number', min: 1, value: route.max_concurrency ?? '' }),
    field('Route configuration (JSON object of strings)', {
      name: 'config',
      multiline: true,
      value: route.config ? JSON.stringify(route.config) : '',
    }),
  ];
}

function select(label, name, options, current) {
  const id = `f-${name}-${Math.random().toString(36).slice(2, 7)}`;
  return [
    h('label', { for: id }, label),
    h(
      'select',
      { id, name },
      options.map((o) => h('option', { value: o, selected: o === current }, o)),
    ),
  ];
}

/** Form values → route settings; empty numbers are left out so the API applies its defaults. */
function routeSettings(values) {
  const settings = { image: values.image, type: values.type, format: values.format };
  for (const key of ['memory', 'timeout', 'idle_timeout', 'max_concurrency']) {
    if (values[key] !== '') settings[key] = Number(values[key]);
  }
  const config = parseConfig(values.config);
  if (config) settings.config = config;
  return settings;
}

function parseConfig(text) {
  if (!text || !text.trim()) return undefined;
  let config;
  try {
    config = JSON.parse(text);
  } catch {
    throw new Error('Configuration must be a JSON object, e.g. {"KEY": "value"}');
  }
  if (!config || typeof config !== 'object' || Array.isArray(config))
    throw new Error('Configuration must be a JSON object, e.g. {"KEY": "value"}');
  return config;
}

function configText(config) {
  const keys = Object.keys(config || {});
  return keys.length ? keys.join(', ') : '—';
}
