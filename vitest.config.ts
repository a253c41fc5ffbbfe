import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // dist/ built from the current sources (what spawned CLIs run), then one private
    // ClickHouse + Redis for the whole run; each test file gets its own database and queue
    // prefix (test/support/test-environment.ts).
    globalSetup: ['test/setup/compiled-build.ts', 'test/setup/global-stack.ts'],
    pool: 'forks',
    testTimeout: 60_000,
    hookTimeout: 120_000,
    teardownTimeout: 30_000,
  },
});
