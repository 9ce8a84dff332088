// Lint for the action's TypeScript: typed rules catch un-awaited promises,
// which in an action silently lose a failure.
import eslint from '@eslint/js'
import tseslint from 'typescript-eslint'

export default tseslint.config(
  // scripts/ is shell and jq, but for the rendering test's JavaScript
  {
    ignores: [
      'dist/',
      'node_modules/',
      'coverage/',
      'src/afpbench/',
      'scripts/**/*',
      '!scripts/tests/',
      '!scripts/tests/render/',
      '!scripts/tests/render/*.mjs'
    ]
  },
  eslint.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname }
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/explicit-module-boundary-types': 'error',
      eqeqeq: 'error',
      'no-console': 'error'
    }
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    extends: [tseslint.configs.disableTypeChecked],
    languageOptions: { globals: { process: 'readonly', console: 'readonly' } },
    rules: { 'no-console': 'off', '@typescript-eslint/explicit-module-boundary-types': 'off' }
  },
  {
    files: ['src/action/**/*.test.ts', 'src/action/e2e/**/*.ts', 'src/history-page/**/*.test.ts'],
    rules: { 'no-console': 'off' }
  }
)
