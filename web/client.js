// @ts-check
// The dashboard's one client of the HTTP API: the shared client (client/endpoints.js, which
// names every path) over the browser transport (api.js), its answers unwrapped for the pages.
// Paths under the current project take its id from the session.
import { browserTransport, session } from './api.js';
import { apiClient } from '../client/endpoints.js';

const shared = apiClient(browserTransport());
const { identity: id, worker: w, clusters: c } = shared;

export const mq = {
  ...shared.mq,
  /** @param {string} name */
  get: async (name) => (await shared.mq.get(name)).queue,
  /** @param {string} name @param {import('./types').QueueChanges} changes */
  update: async (name, changes) => (await shared.mq.update(name, changes)).queue,
  /** @param {string} name @param {string[]} bodies */
  post: (name, bodies) =>
    shared.mq.post(
      name,
      bodies.map((body) => ({ body })),
    ),
  /** @param {string} name @param {number} n */
  peek: async (name, n) => (await shared.mq.peek(name, n)).messages,
  /** @param {string} name @param {number} n @param {number} timeout */
  reserve: async (name, n, timeout) => (await shared.mq.reserve(name, { n, timeout })).messages,
};

export const cache = shared.cache;

export const worker = {
  ...w,
  /** @param {import('../client/transport.js').Query} query */
  tasks: async (query) => (await w.tasks(query)).tasks,
  /** @param {string} codeName @param {string} payload @returns {Promise<string>} the new task's id */
  queue: async (codeName, payload) => (await w.queue([{ code_name: codeName, payload }])).tasks[0].id,
  /** @param {string} taskId @returns {Promise<string>} the retry's id */
  retry: async (taskId) => (await w.retry(taskId)).tasks[0].id,
  /** @param {import('../client/transport.js').Query} query */
  codes: async (query) => (await w.codes(query)).codes,
  /** @param {string} codeId */
  revisions: async (codeId) => (await w.revisions(codeId)).revisions,
  schedules: async () => (await w.schedules({ per_page: 100 })).schedules,
};

export const clusters = {
  ...c,
  list: async () => (await c.list()).clusters,
  /** @param {object} settings */
  create: async (settings) => (await c.create(settings)).cluster,
  /** @param {string} clusterId */
  get: async (clusterId) => (await c.get(clusterId)).cluster,
  /** @param {string} clusterId */
  runners: async (clusterId) => (await c.runners(clusterId)).runners,
};

const project = () => session.projectId || undefined;

export const functions = {
  ...shared.functions,
  /** @param {string} name @param {unknown} config */
  createApp: (name, config) => shared.functions.createApp(name, config, project()),
  /** @param {string} app @param {object} route */
  createRoute: (app, route) => shared.functions.createRoute(app, route, project()),
  /** @param {string} app @param {string} path @param {object} route */
  updateRoute: (app, path, route) => shared.functions.updateRoute(app, path, route, project()),
  /** @param {string} app @param {number} perPage */
  calls: (app, perPage) => shared.functions.calls(app, { per_page: perPage }),
};

export const identity = {
  ...id,
  projects: async () => (await id.projects()).projects,
  tokens: async () => (await id.tokens()).tokens,
  /** @param {string} name */
  createToken: (name) => id.createToken({ name }),
  /** @param {string} projectId @param {'share' | 'unshare'} verb @param {string} email */
  share: (projectId, verb, email) => id[verb](projectId, [email]),
};
