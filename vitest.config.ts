import { defineConfig } from 'vitest/config'

// Unit tests: fast, no server, no network.
export default defineConfig({
  test: {
    environment: 'node',
    include: ['src/action/**/*.test.ts'],
    exclude: ['src/action/e2e/**', 'node_modules/**'],
    clearMocks: true,
    coverage: {
      provider: 'v8',
      include: ['src/action/**/*.ts'],
      exclude: [
        'src/action/**/*.test.ts',
        'src/action/e2e/**',
        'src/action/index.ts',
        'src/action/post.ts'
      ],
      reporter: ['text', 'lcov']
    }
  }
})
