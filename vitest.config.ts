import { defineConfig } from 'vitest/config';
import { machineSlowness } from './test/helpers/pace.js';

/**
 * Five lanes (vitest projects):
 * - unit: test/unit, no Redis, no Docker;
 * - docker: whatever needs the Docker engine: test/docker, any `*-docker.test.ts`, and the
 *   existing areas that start runners or containers (listed below); also the heavy tests that
 *   must run one file at a time (rolling-restart: two controllers and nginx under load);
 * - redis: every other test (the default for a new top-level test file): a real redis-server;
 *   test/redis/domain calls src/ directly on one redis-server per vitest worker (started by
 *   test/helpers/shared-redis-setup.ts), the others each start a private one with a controller;
 * - cluster: test/cluster and a representative subset of the MQ, cache, identity, worker and
 *   functions suites again, each server on its own real 3-master Redis Cluster;
 * - sentinel: test/sentinel and a smaller subset again, each server on the master a Sentinel
 *   names (with one replica).
 * `npm run test:fast` runs unit and test/redis/domain; `npm test` runs all five (scripts/test-lanes.sh).
 */
const DOCKER = [
  'test/docker/**/*.test.ts',
  'test/**/*-docker.test.ts',
  'test/image*.test.ts',
  'test/worker-autoscaler*.test.ts',
  'test/worker-runner*.test.ts',
  'test/worker-concurrency*.test.ts',
  'test/worker-iron-client*.test.ts',
  'test/worker-pause*.test.ts',
  'test/worker-priorities*.test.ts',
  'test/worker-progress*.test.ts',
  'test/worker-retries*.test.ts',
  'test/worker-stats*.test.ts',
  'test/functions-*.test.ts',
  'test/dashboard*.test.ts',
  'test/cli-worker*.test.ts',
  'test/metrics*.test.ts',
  'test/rolling-restart*.test.ts',
];

/** The suites the cluster lane runs again on a Redis Cluster (beside test/cluster). */
const ON_CLUSTER = [
  'test/cluster/**/*.test.ts',
  'test/mq-v3-messages.test.ts',
  'test/mq-v1-messages.test.ts',
  'test/mq-v3-dead-letter.test.ts',
  'test/mq-v3-expiry-sweep.test.ts',
  'test/mq-push-delivery.test.ts',
  'test/mq-queue-sampling.test.ts',
  'test/cache-items.test.ts',
  'test/cache-expiry.test.ts',
  'test/cache-sweeper.test.ts',
  'test/identity-projects.test.ts',
  'test/adversarial/suspension-deletion.test.ts',
  'test/adversarial/storage-quotas.test.ts',
  'test/adversarial/function-calls-transport.test.ts',
  'test/worker-tasks-api.test.ts',
  'test/worker-clusters-api.test.ts',
  'test/worker-retry-dispatch.test.ts',
  'test/worker-schedules-leaders.test.ts',
  'test/worker-task-retention.test.ts',
  'test/runner-api.test.ts',
  'test/worker-runner.test.ts',
  'test/worker-runner-process.test.ts',
  'test/functions-api.test.ts',
  'test/functions-calls.test.ts',
];

/** The suites the sentinel lane runs again on a Sentinel-watched master (beside test/sentinel). */
const ON_SENTINEL = [
  'test/sentinel/**/*.test.ts',
  'test/mq-v3-messages.test.ts',
  'test/cache-items.test.ts',
  'test/worker-tasks-api.test.ts',
  'test/worker-retry-dispatch.test.ts',
  'test/functions-api.test.ts',
];

// Measured once for the run (test/helpers/pace.ts); every worker's waiting bounds take the same.
process.env.FERRUM_TEST_SLOWNESS = String(machineSlowness());
const slowness = Number(process.env.FERRUM_TEST_SLOWNESS);

const shared = {
  pool: 'forks',
  testTimeout: Math.round(30_000 * slowness),
  hookTimeout: Math.round(60_000 * slowness),
} as const;

export default defineConfig({
  test: {
    reporters: ['default', 'json'],
    // Read by scripts/test-summary.mjs for CI's one-line summary.
    outputFile: { json: '.ci/results.json' },
    projects: [
      { test: { ...shared, name: 'unit', include: ['test/unit/**/*.test.ts'] } },
      {
        test: {
          ...shared,
          name: 'redis',
          include: ['test/**/*.test.ts'],
          exclude: ['test/unit/**', 'test/cluster/**', 'test/sentinel/**', ...DOCKER, '**/node_modules/**'],
          globalSetup: ['test/helpers/shared-redis-setup.ts'],
        },
      },
      { test: { ...shared, name: 'docker', include: DOCKER } },
      { test: { ...shared, name: 'cluster', include: ON_CLUSTER, env: { FERRUM_TEST_REDIS: 'cluster' } } },
      { test: { ...shared, name: 'sentinel', include: ON_SENTINEL, env: { FERRUM_TEST_REDIS: 'sentinel' } } },
    ],
  },
});
