import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // dist/ built from the current sources (what spawned CLIs run), then one private
    // ClickHouse + Redis for the whole run; each test file gets its own database and queue
    // prefix (test/support/test-environment.ts).
    globalSetup: ['test/setup/compiled-build.ts', 'test/setup/global-stack.ts'],
    pool: 'forks',
    // The suite waits on servers and child processes far more than it computes: with
    // Vitest's default on two cores (cores - 1 = one file at a time) a run used 40 % of the
    // CPU and took 4 min 40 s; four files at a time, 2 min (quiet machine, 2026-11-26).
    maxWorkers: 4,
    testTimeout: 60_000,
    hookTimeout: 120_000,
    teardownTimeout: 30_000,
  },
});
