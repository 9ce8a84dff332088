import { defineConfig } from 'vitest/config'

// End-to-end tests that need a real Docker Engine (server: compose): run by
// `scripts/test-all compose`, which starts one with scripts/docker-engine and
// imports the base image. Alone they fail, saying what they need.
export default defineConfig({
  test: {
    environment: 'node',
    include: ['src/action/e2e/**/*.e2e-engine.test.ts'],
    fileParallelism: false,
    testTimeout: 900_000,
    hookTimeout: 120_000
  }
})
