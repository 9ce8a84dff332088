// Every string the action reads from action.yml or writes back: one place, so a
// rename cannot miss a use (action-docs.test.ts checks these against action.yml).

// The inputs: generated from action.yml (action-inputs.ts).
export { Input, type InputName } from './action-inputs.js'

export const Output = {
  Verdict: 'verdict',
  Summary: 'summary',
  TimePerOpRatio: 'time-per-op-ratio',
  ReadsPerOpRatio: 'reads-per-op-ratio',
  WritesPerOpRatio: 'writes-per-op-ratio',
  Regressions: 'regressions',
  RegressedMetrics: 'regressed-metrics',
  ResultsDir: 'results-dir',
  Report: 'report',
  Charts: 'charts',
  CommentUrl: 'comment-url',
  Baseline: 'baseline',
  ArtifactId: 'artifact-id',
  BisectCommit: 'bisect-commit',
  CheckRunUrl: 'check-run-url'
} as const

// Values the main step leaves for the post step (core.saveState).
export const State = {
  ComposeProject: 'compose-project',
  ComposeFile: 'compose-file',
  ComposeInstr: 'compose-instr' // 'true': the instrumented profile ran
} as const

// The hidden first line of report.md (written by scripts/report) that marks our
// sticky comment.
export const REPORT_MARKER = '<!-- afpbench-action:report -->'
// The line of report.md where the charts go (above its folded details).
export const CHARTS_MARKER = '<!-- afpbench-action:charts -->'
// The same place, every chart folded: the report says so when no chart is
// worth a reader's first look (a pass, or timings that were only shown).
export const CHARTS_MARKER_FOLDED = '<!-- afpbench-action:charts folded -->'
// The line of report.md's Trend section where the trend chart goes (the
// default branch's history, docs/history.md): open when this run moved a row.
export const TREND_MARKER = '<!-- afpbench-action:trend -->'
export const TREND_MARKER_FOLDED = '<!-- afpbench-action:trend folded -->'

// What the action adds to the results directory so that a later `mode: publish`
// job knows which pull request the results belong to.
export const CONTEXT_FILE = 'action-context.json'
export const CONTEXT_SCHEMA = 'afpbench-action-context/1'

// Where the client reaches an A/B run's base in compose: compose.yaml runs the
// base server in the head server's network namespace, as the client is, on a
// port of its own.
export const BASE_ADDRESS = { host: '127.0.0.1', port: '549' }
