import { defineConfig } from 'vitest/config';

// isolated-vm on Node 20 needs --no-node-snapshot, so tests run in forked
// processes started with that flag.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Fails the run, with a one-line reason, when dist/ is older than src/ (tests start compiled workers).
    globalSetup: ['test/global-setup.ts'],
    pool: 'forks',
    execArgv: ['--no-node-snapshot'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
