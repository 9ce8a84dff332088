// TEST ONLY: a matrix's comment from slices on disk, as the action's publish
// step writes it (matrix.ts), for the rendering test
// (scripts/tests/report_render.bats bundles this with esbuild and renders
// what it writes like any report).
//
//   node matrix-report.cjs RESULTS_DIR OUT_DIR
//
// RESULTS_DIR holds one directory per slice (each a gate's results: its
// verdict.json and report.md); OUT_DIR gets report.md and verdict.json (the
// matrix's status and headline).

import { mkdirSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { readMatrix } from '../matrix.js'

const [resultsDir, outDir] = process.argv.slice(2)
if (!resultsDir || !outDir) {
  process.stderr.write('usage: matrix-report RESULTS_DIR OUT_DIR\n')
  process.exit(1)
}
const m = readMatrix(resultsDir, [])
mkdirSync(outDir, { recursive: true })
writeFileSync(path.join(outDir, 'report.md'), m.report)
writeFileSync(
  path.join(outDir, 'verdict.json'),
  `${JSON.stringify({ status: m.status, headline: m.headline, rows: [] })}\n`
)
process.stdout.write(`${m.status}: ${m.headline}\n`)
