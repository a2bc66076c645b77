// @ts-check
// Every path of the HTTP API that the dashboard and the CLI call, built here and only here
// (test/redis/client-routes.test.ts checks each against the routes the server registers).
// Plain ES module JS: the dashboard's browser loads it as is (served at /client/).

const enc = encodeURIComponent;

/** A function route's path keeps its slashes, each segment encoded: `hello/world` → `/hello/world`. */
const routeSegments = (/** @type {string} */ path) => `/${path.replace(/^\/+/, '').split('/').map(enc).join('/')}`;

export const identityPaths = {
  authentication: () => '/1/authentication',
  dashboardSession: () => '/ui/session',
  projects: () => '/1/projects',
  project: (/** @type {string} */ id) => `/1/projects/${enc(id)}`,
  history: (/** @type {string} */ project) => `/1/projects/${enc(project)}/history`,
  users: () => '/1/users',
  user: (/** @type {string} */ user) => `/1/users/${enc(user)}`,
  tokens: () => '/1/tokens',
  token: (/** @type {string} */ id) => `/1/tokens/${enc(id)}`,
};

export const mqPaths = {
  queues: (/** @type {string} */ project) => `/3/projects/${enc(project)}/queues`,
  queue: (/** @type {string} */ project, /** @type {string} */ queue) => `${mqPaths.queues(project)}/${enc(queue)}`,
  messages: (/** @type {string} */ project, /** @type {string} */ queue) => `${mqPaths.queue(project, queue)}/messages`,
  message: (/** @type {string} */ project, /** @type {string} */ queue, /** @type {string} */ id) =>
    `${mqPaths.messages(project, queue)}/${enc(id)}`,
  reservations: (/** @type {string} */ project, /** @type {string} */ queue) =>
    `${mqPaths.queue(project, queue)}/reservations`,
};

export const cachePaths = {
  caches: (/** @type {string} */ project) => `/1/projects/${enc(project)}/caches`,
  cache: (/** @type {string} */ project, /** @type {string} */ cache) => `${cachePaths.caches(project)}/${enc(cache)}`,
  item: (/** @type {string} */ project, /** @type {string} */ cache, /** @type {string} */ key) =>
    `${cachePaths.cache(project, cache)}/items/${enc(key)}`,
};

export const workerPaths = {
  codes: (/** @type {string} */ project) => `/2/projects/${enc(project)}/codes`,
  code: (/** @type {string} */ project, /** @type {string} */ id) => `${workerPaths.codes(project)}/${enc(id)}`,
  tasks: (/** @type {string} */ project) => `/2/projects/${enc(project)}/tasks`,
  task: (/** @type {string} */ project, /** @type {string} */ id) => `${workerPaths.tasks(project)}/${enc(id)}`,
  taskLog: (/** @type {string} */ project, /** @type {string} */ id) => `${workerPaths.task(project, id)}/log`,
  schedules: (/** @type {string} */ project) => `/2/projects/${enc(project)}/schedules`,
  schedule: (/** @type {string} */ project, /** @type {string} */ id) => `${workerPaths.schedules(project)}/${enc(id)}`,
  clusters: () => '/2/clusters',
  cluster: (/** @type {string} */ id) => `/2/clusters/${enc(id)}`,
  runnerToken: (/** @type {string} */ cluster, /** @type {string} */ id) =>
    `${workerPaths.cluster(cluster)}/tokens/${enc(id)}`,
};

export const functionPaths = {
  apps: () => '/v1/apps',
  app: (/** @type {string} */ app) => `/v1/apps/${enc(app)}`,
  route: (/** @type {string} */ app, /** @type {string} */ path) =>
    `${functionPaths.app(app)}/routes${routeSegments(path)}`,
  call: (/** @type {string} */ app, /** @type {string} */ id) => `${functionPaths.app(app)}/calls/${enc(id)}`,
  /** Where a route is called (anonymously: the platform token is not handed to the function). */
  invoke: (/** @type {string} */ app, /** @type {string} */ path) => `/r/${enc(app)}${routeSegments(path)}`,
};
