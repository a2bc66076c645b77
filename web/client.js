// @ts-check
// The dashboard's one client of the HTTP API: every page calls these, never a path of its own.
// Paths under the current project take its id from the session (api.js).
import { api, session } from './api.js';
/** @typedef {import('./types').Queue} Queue */
/** @typedef {import('./types').QueueChanges} QueueChanges */
/** @typedef {import('./types').Message} Message */
/** @typedef {import('./types').Task} Task */
/** @typedef {import('./types').Code} Code */
/** @typedef {import('./types').Cluster} Cluster */
/** @typedef {import('./types').Project} Project */
/** @typedef {import('./types').History} History */
/** @typedef {Record<string, string | number | undefined>} Query */

const enc = encodeURIComponent;
const project = () => enc(session.projectId || '');

/** `?a=1&b=2` from the query's defined values ('' when none). */
function queryString(/** @type {Query} */ query = {}) {
  const defined = Object.entries(query).filter(([, value]) => value !== undefined && value !== '');
  return defined.length ? `?${new URLSearchParams(defined.map(([k, v]) => [k, String(v)]))}` : '';
}

/** @param {string} method @param {string} path @param {unknown} [body] @returns {Promise<any>} */
const call = (method, path, body) => api(method, path, body);

const queuePath = (/** @type {string} */ name, rest = '') => `/3/projects/${project()}/queues/${enc(name)}${rest}`;
const messagePath = (/** @type {string} */ name, /** @type {string} */ id, rest = '') =>
  queuePath(name, `/messages/${enc(id)}${rest}`);

export const mq = {
  /** @param {Query} query @returns {Promise<{queues: {name: string}[]}>} */
  list: (query) => call('GET', `/3/projects/${project()}/queues${queryString(query)}`),
  /** @param {string} name @returns {Promise<Queue>} */
  get: async (name) => (await call('GET', queuePath(name))).queue,
  /** @param {string} name @param {QueueChanges} changes @returns {Promise<Queue>} */
  update: async (name, changes) => (await call('PATCH', queuePath(name), { queue: changes })).queue,
  /** @param {string} name */
  remove: (name) => call('DELETE', queuePath(name)),
  /** @param {string} name @param {string[]} bodies @returns {Promise<{ids: string[]}>} */
  post: (name, bodies) => call('POST', queuePath(name, '/messages'), { messages: bodies.map((body) => ({ body })) }),
  /** @param {string} name @param {number} n @returns {Promise<Message[]>} */
  peek: async (name, n) => (await call('GET', queuePath(name, `/messages?n=${n}`))).messages,
  /** @param {string} name @param {number} n @param {number} timeout @returns {Promise<Message[]>} */
  reserve: async (name, n, timeout) => (await call('POST', queuePath(name, '/reservations'), { n, timeout })).messages,
  /** @param {string} name */
  clear: (name) => call('DELETE', queuePath(name, '/messages'), {}),
  /** @param {string} name @param {string} id @param {string} [reservationId] */
  deleteMessage: (name, id, reservationId) =>
    call('DELETE', messagePath(name, id), reservationId ? { reservation_id: reservationId } : {}),
  /** @param {string} name @param {string} id @param {string} reservationId */
  release: (name, id, reservationId) =>
    call('POST', messagePath(name, id, '/release'), { reservation_id: reservationId }),
  /** @param {string} name @param {string} id @param {string} reservationId @returns {Promise<{reservation_id: string}>} */
  touch: (name, id, reservationId) => call('POST', messagePath(name, id, '/touch'), { reservation_id: reservationId }),
};

const cachePath = (rest = '') => `/1/projects/${project()}/caches${rest}`;

export const cache = {
  /** @param {number} page @returns {Promise<{name: string}[]>} */
  list: (page) => call('GET', cachePath(`?page=${page}`)),
  /** @param {string} name @returns {Promise<{name: string, size: number}>} */
  get: (name) => call('GET', cachePath(`/${enc(name)}`)),
  /** @param {string} name @param {string} key @returns {Promise<{key: string, value: unknown, cas: number}>} */
  item: (name, key) => call('GET', cachePath(`/${enc(name)}/items/${enc(key)}`)),
  /** @param {string} name */
  clear: (name) => call('POST', cachePath(`/${enc(name)}/clear`), {}),
  /** @param {string} name */
  remove: (name) => call('DELETE', cachePath(`/${enc(name)}`)),
};

const workerPath = (/** @type {string} */ rest) => `/2/projects/${project()}${rest}`;
const taskPath = (/** @type {string} */ id, rest = '') => workerPath(`/tasks/${enc(id)}${rest}`);
const codePath = (/** @type {string} */ id, rest = '') => workerPath(`/codes/${enc(id)}${rest}`);

export const worker = {
  /** @param {Query} query @returns {Promise<Task[]>} */
  tasks: async (query) => (await call('GET', workerPath(`/tasks${queryString(query)}`))).tasks,
  /** @param {string} id @returns {Promise<Task>} */
  task: (id) => call('GET', taskPath(id)),
  /** @param {string} id @returns {Promise<string>} */
  log: (id) => api('GET', taskPath(id, '/log'), undefined, { accept: 'text/plain' }),
  /** @param {string} codeName @param {string} payload @returns {Promise<string>} the new task's id */
  queue: async (codeName, payload) =>
    (await call('POST', workerPath('/tasks'), { tasks: [{ code_name: codeName, payload }] })).tasks[0].id,
  /** @param {string} id @returns {Promise<string>} the retry's id */
  retry: async (id) => (await call('POST', taskPath(id, '/retry'), {})).tasks[0].id,
  /** @param {string} id */
  cancel: (id) => call('POST', taskPath(id, '/cancel'), {}),
  /** @param {Query} query @returns {Promise<Code[]>} */
  codes: async (query) => (await call('GET', workerPath(`/codes${queryString(query)}`))).codes,
  /** @param {string} id @returns {Promise<Code>} */
  code: (id) => call('GET', codePath(id)),
  /** @param {string} id @returns {Promise<{rev: number, image?: string, created_at: string}[]>} */
  revisions: async (id) => (await call('GET', codePath(id, '/revisions?per_page=100'))).revisions,
  /** @param {string} id @returns {Promise<Record<string, number>>} */
  codeStats: (id) => call('GET', codePath(id, '/stats')),
  /** @param {string} id */
  deleteCode: (id) => call('DELETE', codePath(id)),
  /** @param {string} id */
  pause: (id) => call('POST', codePath(id, '/pause_task_queue'), {}),
  /** @param {string} id */
  resume: (id) => call('POST', codePath(id, '/resume_task_queue'), {}),
  /** @returns {Promise<({id: string, code_name: string, status: string} & Record<string, any>)[]>} */
  schedules: async () => (await call('GET', workerPath('/schedules?per_page=100'))).schedules,
  /** @param {string} id */
  cancelSchedule: (id) => call('POST', workerPath(`/schedules/${enc(id)}/cancel`), {}),
};

const clusterPath = (/** @type {string} */ id, rest = '') => `/2/clusters/${enc(id)}${rest}`;

export const clusters = {
  /** @returns {Promise<Cluster[]>} */
  list: async () => (await call('GET', '/2/clusters')).clusters,
  /** @param {unknown} settings @returns {Promise<Cluster>} */
  create: async (settings) => (await call('POST', '/2/clusters', settings)).cluster,
  /** @param {string} id @returns {Promise<Cluster>} */
  get: async (id) => (await call('GET', clusterPath(id))).cluster,
  /** @param {string} id @returns {Promise<any>} */
  stats: (id) => call('GET', clusterPath(id, '/stats')),
  /** @param {string} id @returns {Promise<any[]>} */
  runners: async (id) => (await call('GET', clusterPath(id, '/runners'))).runners,
  /** @param {string} id @returns {Promise<{msg: string}>} */
  terminate: (id) => call('POST', clusterPath(id, '/terminate'), {}),
  /** @param {string} id */
  remove: (id) => call('DELETE', clusterPath(id)),
};

const appsPath = (rest = '', /** @type {Query} */ query = {}) =>
  `/v1/apps${rest}${queryString({ project_id: session.projectId || '', ...query })}`;
const appPath = (/** @type {string} */ app, rest = '', /** @type {Query} */ query = {}) =>
  appsPath(`/${enc(app)}${rest}`, query);
/** A route path keeps its slashes: `/hello/world` → `/routes/hello/world`. */
const routePath = (/** @type {string} */ app, /** @type {string} */ path) =>
  appPath(app, `/routes/${path.replace(/^\/+/, '').split('/').map(enc).join('/')}`);

export const functions = {
  /** @param {string} [cursor] @returns {Promise<{apps: any[], next_cursor?: string}>} */
  apps: (cursor) => call('GET', appsPath('', { cursor })),
  /** @param {string} name @param {unknown} config */
  createApp: (name, config) => call('POST', appsPath(), { app: { name, config } }),
  /** @param {string} name */
  deleteApp: (name) => call('DELETE', appPath(name)),
  /** @param {string} name @returns {Promise<{routes: any[]}>} */
  routes: (name) => call('GET', appPath(name, '/routes')),
  /** @param {string} name @param {number} perPage @returns {Promise<{calls: any[]}>} */
  calls: (name, perPage) => call('GET', appPath(name, '/calls', { per_page: perPage })),
  /** @param {string} name @param {string} callId @returns {Promise<{log: any}>} */
  callLog: (name, callId) => call('GET', appPath(name, `/calls/${enc(callId)}/log`)),
  /** @param {string} name @param {object} route */
  createRoute: (name, route) => call('POST', appPath(name, '/routes'), { route }),
  /** @param {string} name @param {string} path @param {object} route */
  updateRoute: (name, path, route) => call('PATCH', routePath(name, path), { route }),
  /** @param {string} name @param {string} path */
  deleteRoute: (name, path) => call('DELETE', routePath(name, path)),
};

export const identity = {
  /** @param {string} email @param {string} password @returns {Promise<{tokens: string[]}>} */
  signIn: (email, password) => call('POST', '/1/authentication', { email, password }),
  /** @returns {Promise<Project[]>} */
  projects: async () => (await call('GET', '/1/projects')).projects,
  /** @param {string} id @returns {Promise<Project>} */
  project: (id) => call('GET', `/1/projects/${enc(id)}`),
  /** @param {string} name @returns {Promise<Project>} */
  createProject: (name) => call('POST', '/1/projects', { name }),
  /** @param {string} id @param {'share' | 'unshare'} action @param {string} email */
  share: (id, action, email) => call('PATCH', `/1/projects/${enc(id)}/${action}`, [email]),
  /** @param {string} id @returns {Promise<{email?: string}>} */
  user: (id) => call('GET', `/1/users/${enc(id)}`),
  /** @returns {Promise<any[]>} */
  tokens: async () => (await call('GET', '/1/tokens')).tokens,
  /** @param {string} name @returns {Promise<{token: string}>} */
  createToken: (name) => call('POST', '/1/tokens', { name }),
  /** @param {string} id */
  deleteToken: (id) => call('DELETE', `/1/tokens/${enc(id)}`),
  /** @returns {Promise<History>} */
  history: () => call('GET', `/1/projects/${project()}/history`),
};
