// @ts-check
// The worker service's endpoints of the shared client (client/endpoints.js): tasks, code
// packages, schedules and clusters.
import { workerPaths } from './paths.js';
/** @typedef {import('./transport.js').Transport} Transport */
/** @typedef {import('./transport.js').Query} Query */
/** @typedef {import('./responses.js').Msg} Msg */
/** @typedef {import('./responses.js').Task} Task */
/** @typedef {import('./responses.js').Queued} Queued */

/** @param {Transport} t */
function taskEndpoints(t) {
  const p = workerPaths;
  const task = (/** @type {string} */ id) => p.task(t.projectId(), id);
  return {
    /** @param {Query} query @returns {Promise<{tasks?: Task[]}>} */
    tasks: (query) => t.json('GET', p.tasks(t.projectId()), { query }),
    /** @param {string} id @returns {Promise<Task>} */
    task: (id) => t.json('GET', task(id)),
    /** @param {string} id @returns {Promise<string>} the whole log as text */
    log: (id) => t.text('GET', p.taskLog(t.projectId(), id)),
    /** @param {object[]} tasks code_name, payload, priority, cluster, ... @returns {Promise<Queued>} */
    queue: (tasks) => t.json('POST', p.tasks(t.projectId()), { json: { tasks } }),
    /** @param {string} id @param {{delay?: number}} [options] @returns {Promise<Queued>} */
    retry: (id, options = {}) => t.json('POST', `${task(id)}/retry`, { json: options }),
    /** @param {string} id @returns {Promise<Msg>} */
    cancel: (id) => t.json('POST', `${task(id)}/cancel`, { json: {} }),
  };
}

/** @param {Transport} t */
function codeEndpoints(t) {
  const p = workerPaths;
  const code = (/** @type {string} */ id) => p.code(t.projectId(), id);
  /** @typedef {import('./responses.js').Code} Code */
  return {
    /** @param {Query} query @returns {Promise<{codes?: Code[]}>} */
    codes: (query) => t.json('GET', p.codes(t.projectId()), { query }),
    /** @param {string} id @returns {Promise<Code>} */
    code: (id) => t.json('GET', code(id)),
    /** @param {string} id @returns {Promise<{revisions?: import('./responses.js').Revision[]}>} */
    revisions: (id) => t.json('GET', `${code(id)}/revisions`, { query: { per_page: 100 } }),
    /** @param {string} id @returns {Promise<import('./responses.js').CodeStats>} */
    codeStats: (id) => t.json('GET', `${code(id)}/stats`),
    /** @param {string} id @returns {Promise<Msg>} */
    deleteCode: (id) => t.json('DELETE', code(id)),
    /** @param {string} id @returns {Promise<Msg>} */
    pause: (id) => t.json('POST', `${code(id)}/pause_task_queue`, { json: {} }),
    /** @param {string} id @returns {Promise<Msg>} */
    resume: (id) => t.json('POST', `${code(id)}/resume_task_queue`, { json: {} }),
  };
}

/** @param {Transport} t */
function scheduleEndpoints(t) {
  const p = workerPaths;
  /** @typedef {import('./responses.js').Schedule} Schedule */
  return {
    /** @param {Query} [query] @returns {Promise<{schedules?: Schedule[]}>} */
    schedules: (query) => t.json('GET', p.schedules(t.projectId()), { query }),
    /** @param {string} id @returns {Promise<Schedule>} */
    schedule: (id) => t.json('GET', p.schedule(t.projectId(), id)),
    /** @param {object[]} schedules @returns {Promise<{schedules?: Schedule[]}>} */
    createSchedules: (schedules) => t.json('POST', p.schedules(t.projectId()), { json: { schedules } }),
    /** @param {string} id @returns {Promise<Msg>} */
    cancelSchedule: (id) => t.json('POST', `${p.schedule(t.projectId(), id)}/cancel`, { json: {} }),
  };
}

/** @param {Transport} t */
export function workerEndpoints(t) {
  return { ...taskEndpoints(t), ...codeEndpoints(t), ...scheduleEndpoints(t) };
}

/** @param {Transport} t */
export function clusterEndpoints(t) {
  const p = workerPaths;
  /** @typedef {import('./responses.js').ClusterAnswer} ClusterAnswer */
  return {
    /** @returns {Promise<{clusters?: import('./responses.js').Cluster[]}>} */
    list: () => t.json('GET', p.clusters()),
    /** @param {object} settings @returns {Promise<ClusterAnswer>} */
    create: (settings) => t.json('POST', p.clusters(), { json: settings }),
    /** @param {string} id @returns {Promise<ClusterAnswer>} */
    get: (id) => t.json('GET', p.cluster(id)),
    /** @param {string} id @param {object} changes @returns {Promise<ClusterAnswer>} */
    update: (id, changes) => t.json('PUT', p.cluster(id), { json: changes }),
    /** @param {string} id @returns {Promise<import('./responses.js').ClusterStats>} */
    stats: (id) => t.json('GET', `${p.cluster(id)}/stats`),
    /** @param {string} id @returns {Promise<import('./responses.js').ClusterRunners>} */
    runners: (id) => t.json('GET', `${p.cluster(id)}/runners`),
    /** @param {string} id @returns {Promise<Msg>} */
    terminate: (id) => t.json('POST', `${p.cluster(id)}/terminate`, { json: {} }),
    /** @param {string} id @returns {Promise<Msg>} */
    remove: (id) => t.json('DELETE', p.cluster(id)),
    /** @param {string} id @returns {Promise<import('./responses.js').RunnerTokenList>} */
    tokens: (id) => t.json('GET', `${p.cluster(id)}/tokens`),
    /** @param {string} id @returns {Promise<import('./responses.js').RunnerTokenAnswer>} */
    createToken: (id) => t.json('POST', `${p.cluster(id)}/tokens`, { json: {} }),
    /** @param {string} id @param {string} tokenId @returns {Promise<Msg>} */
    deleteToken: (id, tokenId) => t.json('DELETE', p.runnerToken(id, tokenId)),
  };
}
