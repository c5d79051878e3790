import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['**/*.test.ts'],
    // A test beside any code runs; installed packages and the build output are not ours to test.
    exclude: ['**/node_modules/**', 'dist/**', 'data/**'],
    // chDB binds one data directory per process: each test file gets its own process.
    pool: 'forks',
    poolOptions: { forks: { maxForks: 2, minForks: 1 } },
    testTimeout: 60_000,
    hookTimeout: 120_000,
    fileParallelism: true,
    globalSetup: ['test/support/scratch-dir.ts'],
  },
});
