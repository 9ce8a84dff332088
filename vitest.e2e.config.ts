import { defineConfig } from 'vitest/config'

// End-to-end tests: run the built dist/ entries as GitHub runs them, against the
// real netatalk server from scripts/local-server. One file at a time here (the
// machine has 2 cores); scripts/test-all runs each file as a job of its own,
// beside other jobs: each file starts its servers on ports of its own (e2ePort).
export default defineConfig({
  test: {
    environment: 'node',
    include: ['src/action/e2e/**/*.e2e.test.ts'],
    fileParallelism: false,
    testTimeout: 600_000,
    hookTimeout: 300_000
  }
})
