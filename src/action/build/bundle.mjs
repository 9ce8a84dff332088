// Bundle the action into dist/ (committed: GitHub runs dist/ straight from the
// tag, with no install step). Deterministic: same sources and lockfile, same bytes,
// so CI can rebuild and `git diff --exit-code dist/`.
import { rmSync } from 'node:fs'
import { build } from 'esbuild'

const entries = { index: 'src/action/index.ts', post: 'src/action/post.ts' }
// the directory to write: dist/, or another one to compare with it (the CI's
// freshness check, which must not rewrite the dist/ other jobs read)
const outdir = process.argv[2] ?? 'dist'

rmSync(outdir, { recursive: true, force: true })
await build({
  entryPoints: entries,
  outdir,
  bundle: true,
  platform: 'node',
  format: 'esm',
  // node24 on GitHub; Node 20 on the project's machines.
  target: 'node20',
  charset: 'utf8',
  legalComments: 'linked',
  logLevel: 'warning',
  // Some of the toolkit's dependencies are CommonJS and call require(): give the
  // ESM bundle one.
  banner: {
    js: "import { createRequire as __afpbenchCreateRequire } from 'node:module'; const require = __afpbenchCreateRequire(import.meta.url);"
  }
})
