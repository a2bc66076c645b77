import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    reporters: ['default', 'json'],
    // Read by scripts/test-summary.mjs for CI's one-line summary.
    outputFile: { json: '.ci/results.json' },
  },
});
