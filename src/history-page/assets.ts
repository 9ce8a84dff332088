// The page's own files: index.html (made here) and the bundled script and
// style sheet (src/action/build/bundle.mjs builds them into
// dist/history-page-assets/, uPlot included, so the page needs nothing from
// another host).

import { existsSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

export const ASSETS_DIR = 'history-page-assets'

// dist/history-page-assets, found from this module: it runs from dist/ (the
// bundles) or from src/ (the tests).
export function assetsDir(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url))
  for (let up = 0; up < 4; up++) {
    for (const d of [path.join(dir, ASSETS_DIR), path.join(dir, 'dist', ASSETS_DIR)])
      if (existsSync(path.join(d, 'app.js'))) return d
    dir = path.dirname(dir)
  }
  throw new Error(`${ASSETS_DIR}/app.js not found beside the action: run npm run bundle`)
}

// A Content-Security-Policy that lets the page load only its own files:
// whatever a data file holds, it cannot run or fetch anything else.
const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'"

export const INDEX_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="${CSP}">
<meta name="referrer" content="no-referrer">
<title>afpbench history</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="app.css">
<script defer src="app.js"></script>
</head>
<body>
<noscript>This page draws the history with JavaScript.</noscript>
<main id="app"><p class="loading">Loading the history…</p></main>
</body>
</html>
`

// index.html, app.js and app.css: path -> content.
export function pageAssets(): Map<string, string> {
  const dir = assetsDir()
  return new Map([
    ['index.html', INDEX_HTML],
    ['app.js', readFileSync(path.join(dir, 'app.js'), 'utf8')],
    ['app.css', readFileSync(path.join(dir, 'app.css'), 'utf8')]
  ])
}
