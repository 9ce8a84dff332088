import { defineConfig } from 'vitest/config'

// Unit tests: fast, no server, no network.
export default defineConfig({
  test: {
    environment: 'node',
    include: ['src/action/**/*.test.ts', 'src/history-page/**/*.test.ts'],
    // the page in Chromium is a test of its own (vitest.chromium.config.ts)
    exclude: ['src/action/e2e/**', 'src/history-page/**/*.chromium.test.ts', 'node_modules/**'],
    clearMocks: true,
    coverage: {
      provider: 'v8',
      include: ['src/action/**/*.ts', 'src/history-page/*.ts'],
      // main.ts and github-api.ts (the Octokit adapter) are exercised by the
      // end-to-end tests (npm run test:e2e), not by these.
      exclude: [
        'src/action/main.ts',
        'src/action/github-api.ts',
        'src/action/**/*.test.ts',
        'src/action/e2e/**',
        'src/action/index.ts',
        'src/action/post.ts',
        'src/action/testing/**',
        // the page's entry point: run through scripts/history-page
        'src/history-page/cli.ts'
      ],
      thresholds: { lines: 95, branches: 80, functions: 95 },
      reporter: ['text', 'lcov']
    }
  }
})
