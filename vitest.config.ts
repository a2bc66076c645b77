import { configDefaults, defineConfig } from 'vitest/config';
import { machineSlowness, scaled } from './test/helpers/pace.js';

/**
 * Six lanes (vitest projects), one folder each:
 * - unit: test/unit, no Redis, no Docker;
 * - redis: test/redis, a real redis-server: test/redis/domain calls src/ directly on one
 *   redis-server per vitest worker (started by test/helpers/shared-redis-setup.ts), the other
 *   folders (by area) go through HTTP, each file with a private redis-server and controller;
 * - docker: test/docker, whatever needs the Docker engine (runners, containers, images, the
 *   browser tests; rolling-restart's two controllers and nginx under load);
 * - cluster: test/cluster and a representative subset of the other lanes' suites again (listed
 *   by path below), each server on its own real 3-master Redis Cluster;
 * - sentinel: test/sentinel and a smaller subset again, each server on the master a Sentinel
 *   names (with one replica);
 * - upgrade: test/upgrade, the previous releases (test/upgrade/releases.json, built from git
 *   history by scripts/build-release.sh) running beside this checkout on one Redis.
 * `npm run test:fast` runs unit and test/redis/domain; `npm test` runs all six (scripts/test-lanes.sh).
 */
/** The suites the cluster lane runs again on a Redis Cluster (beside test/cluster). */
const ON_CLUSTER = [
  'test/cluster/**/*.test.ts',
  'test/redis/mq/mq-v3-messages.test.ts',
  'test/redis/mq/mq-v1-messages.test.ts',
  'test/redis/mq/mq-v3-dead-letter.test.ts',
  'test/redis/mq/mq-v3-expiry-sweep.test.ts',
  'test/redis/mq/mq-push-delivery.test.ts',
  'test/redis/mq/mq-queue-sampling.test.ts',
  'test/redis/cache/cache-items.test.ts',
  'test/redis/cache/cache-expiry.test.ts',
  'test/redis/cache/cache-sweeper.test.ts',
  'test/redis/identity/identity-projects.test.ts',
  'test/redis/adversarial/suspension-deletion.test.ts',
  'test/redis/adversarial/storage-quotas.test.ts',
  'test/redis/adversarial/function-calls-transport.test.ts',
  'test/redis/worker/worker-tasks-api.test.ts',
  'test/redis/worker/worker-clusters-api.test.ts',
  'test/redis/worker/worker-retry-dispatch.test.ts',
  'test/redis/worker/worker-schedules-leaders.test.ts',
  'test/redis/worker/worker-task-retention.test.ts',
  'test/redis/worker/runner-api.test.ts',
  'test/docker/worker/worker-runner.test.ts',
  'test/docker/worker/worker-runner-process.test.ts',
  'test/docker/functions/functions-api.test.ts',
  'test/docker/functions/functions-calls.test.ts',
];

/**
 * Docker files that run whole Ferrum processes (Redis faults, rolling restarts, upgrades of a
 * runner): scripts/test-lanes.sh runs them with the upgrade lane after the cluster and sentinel
 * lanes, beside the rest of the docker lane, so the two runs side by side take about as long as
 * each other. FERRUM_DOCKER_PART=processes runs only these, =rest all other docker files; unset, all.
 */
const DOCKER_PROCESSES = [
  'test/docker/redis-faults/**/*.test.ts',
  'test/docker/all-in-one-*.test.ts',
  'test/docker/rolling-restart.test.ts',
  'test/docker/worker/gateway-runner-upgrade.test.ts',
];
const dockerPart = process.env.FERRUM_DOCKER_PART;
const DOCKER = {
  include: dockerPart === 'processes' ? DOCKER_PROCESSES : ['test/docker/**/*.test.ts'],
  exclude: [...configDefaults.exclude, ...(dockerPart === 'rest' ? DOCKER_PROCESSES : [])],
};

/** The suites the sentinel lane runs again on a Sentinel-watched master (beside test/sentinel). */
const ON_SENTINEL = [
  'test/sentinel/**/*.test.ts',
  'test/redis/mq/mq-v3-messages.test.ts',
  'test/redis/cache/cache-items.test.ts',
  'test/redis/worker/worker-tasks-api.test.ts',
  'test/redis/worker/worker-retry-dispatch.test.ts',
  'test/docker/functions/functions-api.test.ts',
];

// Measured once for the run (test/helpers/pace.ts); every worker's waiting bounds take the same.
process.env.FERRUM_TEST_SLOWNESS = String(machineSlowness());

/**
 * Every lane's files run one after another in each worker process, which imports the code (the
 * whole server, for most) once rather than once per file: that import cost more than the tests
 * of the unit and redis lanes, and a docker, cluster or sentinel file spent 2-3 s on it (collect:
 * 290 s of the light lane, 113 s of the docker lane's 1,024 s, 98 s of the cluster, sentinel and
 * upgrade run's 573 s in CI). Each file still starts its own server, runners and Redis, or
 * flushes its worker's shared one (test/helpers/shared-redis.ts); what a file changes of the
 * process (fake timers, the script clock, an environment variable) test/helpers/file-reset.ts
 * puts back after it. Vitest still gives each project (lane)
 * workers of its own, so a lane's `env` (FERRUM_TEST_REDIS) stays its own. The setting must be
 * at the root too: the pool reads only the root's, and with it isolated started a process per
 * file whatever the projects said (test/redis/mq, 2 workers, load 6-7: 189 s isolated, collect
 * 153 s; 50 s not, collect 20 s; 9 docker files, one worker: collect 118 s, 21 s).
 */
const NOT_ISOLATED = { isolate: false } as const;

const shared = {
  pool: 'forks' as const,
  ...NOT_ISOLATED,
  setupFiles: ['test/helpers/file-reset.ts'],
  testTimeout: scaled(30_000),
  hookTimeout: scaled(60_000),
};

export default defineConfig({
  test: {
    // Read by the pool (a process per file unless the root says otherwise); a project's own
    // `isolate: false` only keeps its worker from resetting the modules between files.
    ...NOT_ISOLATED,
    reporters: ['default', 'json'],
    // Read by scripts/test-summary.mjs for CI's one-line summary.
    outputFile: { json: '.ci/results.json' },
    projects: [
      { test: { ...shared, name: 'unit', include: ['test/unit/**/*.test.ts'] } },
      {
        test: {
          ...shared,
          name: 'redis',
          include: ['test/redis/**/*.test.ts'],
          globalSetup: ['test/helpers/shared-redis-setup.ts'],
        },
      },
      { test: { ...shared, name: 'docker', ...DOCKER } },
      // Previous releases (test/upgrade/releases.json, built by scripts/build-release.sh) beside this checkout.
      { test: { ...shared, name: 'upgrade', include: ['test/upgrade/**/*.test.ts'] } },
      { test: { ...shared, name: 'cluster', include: ON_CLUSTER, env: { FERRUM_TEST_REDIS: 'cluster' } } },
      { test: { ...shared, name: 'sentinel', include: ON_SENTINEL, env: { FERRUM_TEST_REDIS: 'sentinel' } } },
    ],
  },
});
