import { defineConfig } from 'vitest/config'

// The history page in headless Chromium (src/history-page/page.chromium.test.ts):
// the render stage of scripts/test-all runs it (npm run test:chromium).
export default defineConfig({
  test: {
    environment: 'node',
    include: ['src/history-page/**/*.chromium.test.ts'],
    fileParallelism: false,
    testTimeout: 120_000,
    hookTimeout: 180_000
  }
})
