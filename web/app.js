// @ts-check
import { ApiError, endSession, session } from './api.js';
import { identity } from './client.js';
import { errorBox, h } from './dom.js';
import { cachePage, cachesPage } from './pages/caches.js';
import { clusterPage, clustersPage } from './pages/clusters.js';
import { codePage, codesPage } from './pages/codes.js';
import { appPage, appsPage } from './pages/functions.js';
import { overviewPage } from './pages/overview.js';
import { projectPage, projectsPage } from './pages/projects.js';
import { queuePage } from './pages/queue.js';
import { queuesPage } from './pages/queues.js';
import { schedulesPage } from './pages/schedules.js';
import { signInPage } from './pages/signin.js';
import { taskPage } from './pages/task.js';
import { tasksPage } from './pages/tasks.js';
import { tokensPage } from './pages/tokens.js';

// Route table: the first path segment after '#/' picks the page; a second segment is its id.
const ROUTES = {
  signin: { page: signInPage, public: true },
  overview: { page: overviewPage, title: 'Overview', needsProject: true, live: true },
  projects: { page: projectsPage, detail: projectPage, title: 'Projects' },
  tokens: { page: tokensPage, title: 'Tokens' },
  queues: { page: queuesPage, detail: queuePage, title: 'Queues', needsProject: true, live: true },
  caches: { page: cachesPage, detail: cachePage, title: 'Caches', needsProject: true, live: true },
  codes: { page: codesPage, detail: codePage, title: 'Code', needsProject: true, live: true },
  tasks: { page: tasksPage, detail: taskPage, title: 'Tasks', needsProject: true, live: true },
  schedules: { page: schedulesPage, title: 'Schedules', needsProject: true, live: true },
  clusters: { page: clustersPage, detail: clusterPage, title: 'Clusters', live: true },
  functions: { page: appsPage, detail: appPage, title: 'Functions', needsProject: true },
};
const NAV = [
  'overview',
  'queues',
  'caches',
  'codes',
  'tasks',
  'schedules',
  'clusters',
  'functions',
  'projects',
  'tokens',
];

export function navigate(hash) {
  if (location.hash === hash) render();
  else location.hash = hash;
}

function parseHash() {
  const [path, query = ''] = location.hash.replace(/^#\/?/, '').split('?');
  const [name, ...rest] = path.split('/');
  return {
    name: name || (session.signedIn ? 'overview' : 'signin'),
    id: rest.length ? decodeURIComponent(rest.join('/')) : undefined,
    params: new URLSearchParams(query),
  };
}

function renderNav(active) {
  const nav = document.getElementById('nav');
  const sessionBox = document.getElementById('session');
  if (!session.signedIn) {
    nav.replaceChildren();
    sessionBox.replaceChildren();
    return;
  }
  nav.replaceChildren(
    ...NAV.map((name) =>
      h('a', { href: `#/${name}`, 'aria-current': name === active ? 'page' : undefined }, ROUTES[name].title),
    ),
  );
  const project = session.projectId
    ? h('span', { class: 'project', title: session.projectId }, 'Project ', h('strong', {}, session.projectName || '…'))
    : '';
  if (session.projectId && !session.projectName) void lookUpProjectName(active);
  sessionBox.replaceChildren(
    project,
    h(
      'button',
      {
        class: 'link',
        onclick: async () => {
          await endSession();
          navigate('#/signin');
        },
      },
      'Sign out',
    ),
  );
}

/** The header names the project, not its id: looked up once per project and kept in the session. */
async function lookUpProjectName(active) {
  const projectId = session.projectId;
  try {
    const project = await identity.project(projectId);
    if (session.projectId !== projectId) return;
    session.projectName = project.name || projectId;
  } catch {
    session.projectName = projectId;
  }
  renderNav(active);
}

// List pages show live data: they are drawn again every LIVE_MS while nobody is typing in them.
const LIVE_MS = 5000;
let liveTimer = null;

function scheduleLiveRefresh(route) {
  clearTimeout(liveTimer);
  if (!route.live) return;
  liveTimer = setTimeout(() => {
    const main = document.getElementById('main');
    const typing = main.contains(document.activeElement) && document.activeElement.matches('input, select, textarea');
    // A selection (bulk actions) or a form being filled in is not thrown away.
    const selecting = main.querySelector('input[type=checkbox]:checked');
    if (document.hidden || typing || selecting) return scheduleLiveRefresh(route);
    void render({ live: true });
  }, LIVE_MS);
}

async function render({ live = false } = {}) {
  clearTimeout(liveTimer);
  const main = document.getElementById('main');
  let { name, id, params } = parseHash();
  let route = ROUTES[name];
  if (!route) {
    main.replaceChildren(h('h1', {}, 'Not found'), h('p', {}, h('a', { href: '#/' }, 'Home')));
    return;
  }
  if (!route.public && !session.signedIn) return navigate('#/signin');
  if (route.needsProject && !session.projectId) {
    name = 'projects';
    route = ROUTES.projects;
    id = undefined;
  }
  renderNav(name);
  main.setAttribute('aria-busy', 'true');
  try {
    const page = id !== undefined && route.detail ? route.detail : route.page;
    const content = await page(navigate, id, params);
    const focusedId = live && document.activeElement ? document.activeElement.id : '';
    main.replaceChildren(content);
    const heading = main.querySelector('h1');
    if (heading) heading.tabIndex = -1;
    if (!live && heading) heading.focus();
    if (focusedId) document.getElementById(focusedId)?.focus();
    if (id === undefined) scheduleLiveRefresh(route);
  } catch (error) {
    if (live) return scheduleLiveRefresh(route);
    if (error instanceof ApiError && error.status === 401) {
      session.clear();
      return navigate('#/signin');
    }
    main.replaceChildren(h('h1', {}, 'Something went wrong'), errorBox(error));
  } finally {
    document.title = `${route.title || 'Sign in'} · Ferrum`;
    main.removeAttribute('aria-busy');
  }
}

window.addEventListener('hashchange', () => render());
render();
