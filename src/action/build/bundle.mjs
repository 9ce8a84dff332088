// Bundle the action into dist/ (committed: GitHub runs dist/ straight from the
// tag, with no install step). Deterministic: same sources and lockfile, same bytes,
// so CI can rebuild and `git diff --exit-code dist/`.
//
// A second entry, dist/history-page.js, is the history page's generator
// (scripts/history-page); the page's own script and style sheet, uPlot
// included, go to dist/history-page-assets/ for it and for the action to copy
// into every page they make (docs/history-page.md).
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { build } from 'esbuild'

// history-cli: the history's rules for scripts/backfill (node dist/history-cli.js)
const entries = {
  index: 'src/action/index.ts',
  post: 'src/action/post.ts',
  'history-page': 'src/history-page/cli.ts',
  'history-cli': 'src/action/history-cli.ts'
}
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

// The page's script: one file, minified, for the browsers of the last few
// years; uPlot's licence notice at its top.
const uplot = JSON.parse(readFileSync('node_modules/uplot/package.json', 'utf8'))
const assets = path.join(outdir, 'history-page-assets')
mkdirSync(assets, { recursive: true })
await build({
  entryPoints: ['src/history-page/browser/app.ts'],
  outfile: path.join(assets, 'app.js'),
  bundle: true,
  platform: 'browser',
  format: 'iife',
  target: 'es2020',
  minify: true,
  charset: 'utf8',
  legalComments: 'none',
  logLevel: 'warning',
  banner: {
    js: `/*! afpbench history page. Draws with uPlot ${uplot.version} (c) Leon Sorokin, ${uplot.license} licence, https://github.com/leeoniya/uPlot */`
  }
})
writeFileSync(
  path.join(assets, 'app.css'),
  readFileSync('src/history-page/browser/app.css', 'utf8') +
    `/* uPlot ${uplot.version} (c) Leon Sorokin, ${uplot.license} licence */\n` +
    readFileSync('node_modules/uplot/dist/uPlot.min.css', 'utf8')
)
