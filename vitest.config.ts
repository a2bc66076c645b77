import { defineConfig } from 'vitest/config';

/**
 * Three lanes (vitest projects):
 * - unit: test/unit, no Redis, no Docker;
 * - docker: whatever needs the Docker engine: test/docker, any `*-docker.test.ts`, and the
 *   existing areas that start runners or containers (listed below);
 * - redis: every other test (the default for a new top-level test file): a real redis-server.
 * `npm run test:fast` runs unit and redis; `npm test` runs all three.
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
];

const shared = {
  pool: 'forks',
  testTimeout: 30_000,
  hookTimeout: 60_000,
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
          exclude: ['test/unit/**', ...DOCKER, '**/node_modules/**'],
        },
      },
      { test: { ...shared, name: 'docker', include: DOCKER } },
    ],
  },
});
