// @ts-check
// The one typed client of the HTTP API, shared by the dashboard (web/client.js) and the CLI
// (cli/commands/*): each function names its method and path (client/paths.js) and the type of
// its answer (client/responses.ts, from api/'s schemas). Answers are returned whole.
import { cachePaths, functionPaths, identityPaths, mqPaths, workerPaths } from './paths.js';
import { clusterEndpoints, workerEndpoints } from './worker-endpoints.js';
/** @typedef {import('./transport.js').Transport} Transport */
/** @typedef {import('./transport.js').Query} Query */
/** @typedef {import('./responses.js').Msg} Msg */
/** @template {string} N, T @typedef {import('./responses.js').Wrapped<N, T>} Wrapped */
/** @typedef {import('./responses.js').Project} Project */

/** @param {Transport} t */
function identityEndpoints(t) {
  const p = identityPaths;
  return {
    /** @param {string} email @param {string} password @returns {Promise<{tokens?: string[]}>} */
    signIn: (email, password) => t.json('POST', p.authentication(), { json: { email, password } }),
    /** The dashboard's session cookie for the token the transport carries. @returns {Promise<unknown>} */
    startSession: () => t.json('POST', p.dashboardSession()),
    /** @returns {Promise<unknown>} */
    endSession: () => t.json('DELETE', p.dashboardSession()),
    /** @returns {Promise<{projects?: Project[]}>} */
    projects: () => t.json('GET', p.projects()),
    /** @param {string} id @returns {Promise<Project>} */
    project: (id) => t.json('GET', p.project(id)),
    /** @param {string} name @returns {Promise<Project>} */
    createProject: (name) => t.json('POST', p.projects(), { json: { name } }),
    /** @param {string} id @returns {Promise<Msg>} */
    deleteProject: (id) => t.json('DELETE', p.project(id)),
    /** @param {string} id @param {unknown[]} users ids or e-mails @returns {Promise<Project>} */
    share: (id, users) => t.json('PATCH', `${p.project(id)}/share`, { json: users }),
    /** @param {string} id @param {unknown[]} users ids or e-mails @returns {Promise<Project>} */
    unshare: (id, users) => t.json('PATCH', `${p.project(id)}/unshare`, { json: users }),
    /** @returns {Promise<import('./responses.js').History>} */
    history: () => t.json('GET', p.history(t.projectId())),
    /** @param {{email: string, password: string}} user @returns {Promise<import('./responses.js').User>} */
    createUser: (user) => t.json('POST', p.users(), { json: user }),
    /** @param {Query} query @returns {Promise<{users?: import('./responses.js').User[]}>} */
    users: (query) => t.json('GET', p.users(), { query }),
    /** @param {string} id id or e-mail @returns {Promise<import('./responses.js').User>} */
    user: (id) => t.json('GET', p.user(id)),
    /** @param {string} id @param {{email?: string, password?: string}} changes @returns {Promise<import('./responses.js').User>} */
    updateUser: (id, changes) => t.json('PATCH', p.user(id), { json: changes }),
    /** @param {string} id @returns {Promise<Msg>} */
    deleteUser: (id) => t.json('DELETE', p.user(id)),
    /** @param {Query} [query] @returns {Promise<{tokens?: import('./responses.js').Token[]}>} */
    tokens: (query) => t.json('GET', p.tokens(), { query }),
    /** @param {{name?: string, admin?: boolean, user_id?: string}} token @returns {Promise<import('./responses.js').Token>} */
    createToken: (token) => t.json('POST', p.tokens(), { json: token }),
    /** @param {string} id @returns {Promise<Msg>} */
    deleteToken: (id) => t.json('DELETE', p.token(id)),
  };
}

/** @param {Transport} t */
function queueEndpoints(t) {
  const p = mqPaths;
  /** @typedef {import('./responses.js').QueueAnswer} QueueAnswer */
  return {
    /** @param {Query} query @returns {Promise<{queues?: {name?: string}[]}>} */
    list: (query) => t.json('GET', p.queues(t.projectId()), { query }),
    /** @param {string} name @returns {Promise<QueueAnswer>} */
    get: (name) => t.json('GET', p.queue(t.projectId(), name)),
    /** @param {string} name @param {object} queue the settings @returns {Promise<QueueAnswer>} */
    create: (name, queue) => t.json('PUT', p.queue(t.projectId(), name), { json: { queue } }),
    /** @param {string} name @param {object} queue the settings to change @returns {Promise<QueueAnswer>} */
    update: (name, queue) => t.json('PATCH', p.queue(t.projectId(), name), { json: { queue } }),
    /** @param {string} name @returns {Promise<Msg>} */
    remove: (name) => t.json('DELETE', p.queue(t.projectId(), name)),
  };
}

/** @param {Transport} t */
function messageEndpoints(t) {
  const p = mqPaths;
  const message = (/** @type {string} */ name, /** @type {string} */ id) => p.message(t.projectId(), name, id);
  /** @typedef {import('./responses.js').ReservedMessage} ReservedMessage */
  return {
    /** @param {string} name @param {{body: string, delay?: number}[]} messages @returns {Promise<{ids: string[], msg?: string}>} */
    post: (name, messages) => t.json('POST', p.messages(t.projectId(), name), { json: { messages } }),
    /** @param {string} name @param {number} [n] @returns {Promise<{messages: import('./responses.js').Message[]}>} */
    peek: (name, n) => t.json('GET', p.messages(t.projectId(), name), { query: { n } }),
    /**
     * @param {string} name @param {{n?: number, timeout?: number, wait?: number, delete?: boolean, delete_reserved?: {id: string, reservation_id: string}[]}} request
     * @returns {Promise<{messages: ReservedMessage[], not_deleted?: {id: string, msg: string}[]}>}
     */
    reserve: (name, request) => t.json('POST', p.reservations(t.projectId(), name), { json: request }),
    /** @param {string} name @param {string} id @returns {Promise<{message?: import('./responses.js').Message}>} */
    message: (name, id) => t.json('GET', message(name, id)),
    /** @param {string} name @returns {Promise<Msg>} */
    clear: (name) => t.json('DELETE', p.messages(t.projectId(), name), { json: {} }),
    /** @param {string} name @param {string} id @param {string} [reservationId] @returns {Promise<Msg>} */
    deleteMessage: (name, id, reservationId) =>
      t.json('DELETE', message(name, id), { json: reservationId ? { reservation_id: reservationId } : {} }),
    /** @param {string} name @param {{id: string, reservation_id?: string}[]} ids @returns {Promise<Msg>} */
    deleteMessages: (name, ids) => t.json('DELETE', p.messages(t.projectId(), name), { json: { ids } }),
    /** @param {string} name @param {string} id @param {string} reservationId @returns {Promise<Msg>} */
    release: (name, id, reservationId) =>
      t.json('POST', `${message(name, id)}/release`, { json: { reservation_id: reservationId } }),
    /** @param {string} name @param {string} id @param {string} reservationId @returns {Promise<{reservation_id: string}>} */
    touch: (name, id, reservationId) =>
      t.json('POST', `${message(name, id)}/touch`, { json: { reservation_id: reservationId } }),
  };
}

/** @param {Transport} t */
function cacheEndpoints(t) {
  const p = cachePaths;
  const item = (/** @type {string} */ name, /** @type {string} */ key) => p.item(t.projectId(), name, key);
  /** @typedef {import('./responses.js').CacheItem} CacheItem */
  return {
    /** @param {number} [page] @returns {Promise<import('./responses.js').CacheList>} */
    list: (page) => t.json('GET', p.caches(t.projectId()), { query: { page } }),
    /** @param {string} name @returns {Promise<import('./responses.js').CacheInfo>} */
    get: (name) => t.json('GET', p.cache(t.projectId(), name)),
    /** @param {string} name @returns {Promise<Msg>} */
    clear: (name) => t.json('POST', `${p.cache(t.projectId(), name)}/clear`, { json: {} }),
    /** @param {string} name @returns {Promise<Msg>} */
    remove: (name) => t.json('DELETE', p.cache(t.projectId(), name)),
    /** @param {string} name @param {string} key @returns {Promise<CacheItem>} */
    item: (name, key) => t.json('GET', item(name, key)),
    /** @param {string} name @param {string} key @param {object} put value, expires_in, add, replace, cas @returns {Promise<Msg>} */
    putItem: (name, key, put) => t.json('PUT', item(name, key), { json: put }),
    /** @param {string} name @param {string} key @param {number} amount @returns {Promise<{value: number}>} */
    increment: (name, key, amount) => t.json('POST', `${item(name, key)}/increment`, { json: { amount } }),
    /** @param {string} name @param {string} key @returns {Promise<Msg>} */
    deleteItem: (name, key) => t.json('DELETE', item(name, key)),
  };
}

/** @param {Transport} t */
function functionEndpoints(t) {
  const p = functionPaths;
  /** @typedef {import('./responses.js').App} App */
  /** @typedef {import('./responses.js').Route} Route */
  /** @typedef {import('./responses.js').Call} Call */
  return {
    /** @param {string} [cursor] @returns {Promise<Wrapped<'apps', App[]>>} */
    apps: (cursor) => t.json('GET', p.apps(), { query: { cursor } }),
    /** @param {string} name @param {unknown} config @param {string} [project] @returns {Promise<Wrapped<'app', App>>} */
    createApp: (name, config, project) =>
      t.json('POST', p.apps(), { query: { project_id: project }, json: { app: { name, config } } }),
    /** @param {string} name @returns {Promise<Wrapped<'app', App>>} */
    deleteApp: (name) => t.json('DELETE', p.app(name)),
    /** @param {string} app @returns {Promise<Wrapped<'routes', Route[]>>} */
    routes: (app) => t.json('GET', `${p.app(app)}/routes`),
    /** @param {string} app @param {object} route @param {string} [project] @returns {Promise<Wrapped<'route', Route>>} */
    createRoute: (app, route, project) =>
      t.json('POST', `${p.app(app)}/routes`, { query: { project_id: project }, json: { route } }),
    /** @param {string} app @param {string} path @param {object} route @param {string} [project] @returns {Promise<Wrapped<'route', Route>>} */
    updateRoute: (app, path, route, project) =>
      t.json('PATCH', p.route(app, path), { query: { project_id: project }, json: { route } }),
    /** @param {string} app @param {string} path @returns {Promise<Wrapped<'route', Route>>} */
    deleteRoute: (app, path) => t.json('DELETE', p.route(app, path)),
    /** @param {string} app @param {Query} query @returns {Promise<Wrapped<'calls', Call[]>>} */
    calls: (app, query) => t.json('GET', `${p.app(app)}/calls`, { query }),
    /** @param {string} app @param {string} id @returns {Promise<Wrapped<'call', Call>>} */
    call: (app, id) => t.json('GET', p.call(app, id)),
    /** @param {string} app @param {string} id @returns {Promise<Wrapped<'log', {call_id?: string, log?: string}>>} */
    callLog: (app, id) => t.json('GET', `${p.call(app, id)}/log`),
  };
}

/**
 * The paths of requests a caller sends itself rather than as JSON through the transport: a
 * function's route called anonymously, a log read as bytes, a multipart code upload.
 * @param {Transport} t
 */
function rawPaths(t) {
  return {
    /** @param {string} app @param {string} path */
    invoke: (app, path) => functionPaths.invoke(app, path),
    /** @param {string} id */
    taskLog: (id) => workerPaths.taskLog(t.projectId(), id),
    codeUpload: () => workerPaths.codes(t.projectId()),
  };
}

/** The API's endpoints over `transport`, grouped by service. */
export function apiClient(/** @type {Transport} */ transport) {
  return {
    paths: rawPaths(transport),
    identity: identityEndpoints(transport),
    mq: { ...queueEndpoints(transport), ...messageEndpoints(transport) },
    cache: cacheEndpoints(transport),
    worker: workerEndpoints(transport),
    clusters: clusterEndpoints(transport),
    functions: functionEndpoints(transport),
  };
}

/** @typedef {ReturnType<typeof apiClient>} Endpoints */
