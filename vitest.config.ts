import { defineConfig } from 'vitest/config';

// isolated-vm on Node 20 needs --no-node-snapshot, so tests run in forked
// processes started with that flag.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    pool: 'forks',
    execArgv: ['--no-node-snapshot'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
