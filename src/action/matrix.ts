// A matrix's fan-in (mode: publish with several result sets): each job of a
// matrix gated one slice (a configuration, a group of tests) and uploaded its
// results directory as an artifact; downloaded together they are one
// subdirectory each of results-dir. Merged here into one verdict and one
// report: the worst slice decides, and a slice that was expected but left no
// readable verdict is an error, named, never dropped.

import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import path from 'node:path'
import { CHARTS_MARKER, CHARTS_MARKER_FOLDED, REPORT_MARKER } from './names.js'
import { readResultsContext, type ResultsContext } from './results-context.js'
import {
  headingLine,
  readVerdict,
  STATUS_ICONS,
  worse,
  type Status,
  type VerdictOutputs
} from './verdict.js'

export interface Slice {
  name: string
  status: Status
  headline: string // what decided it: the report's headline, or why there is none
  failed: string[] // metrics of its failed rows
  report: string // report.md without its marker line; '' when none
  fullReport: string // report-full.md likewise, else the report
  hasCharts: boolean
  context: ResultsContext | null
}

export interface Matrix {
  slices: Slice[]
  status: Status
  headline: string
  report: string // the comment's text
  fullReport: string // the job summary's text
  context: ResultsContext | null // the pull request all slices name, if they agree
  warnings: string[]
}

// What one slice's report may take of a comment (GitHub's limit is 65,536
// characters; the table and the headline need a few thousand) and of the job
// summary (1 MiB).
const COMMENT_BUDGET = 60_000
const SUMMARY_BUDGET = 900_000
const MAX_REPORT_BYTES = 4 * 1024 * 1024
const MAX_SLICES = 256

// results-dir holds a matrix when slices are expected, or when it has no
// verdict of its own but subdirectories that do.
export function isMatrix(resultsDir: string, expected: readonly string[]): boolean {
  if (expected.length > 0) return true
  return !existsSync(path.join(resultsDir, 'verdict.json')) && foundSlices(resultsDir).length > 0
}

// The subdirectories holding a verdict.json, sorted by name.
export function foundSlices(resultsDir: string): string[] {
  if (!existsSync(resultsDir)) return []
  return readdirSync(resultsDir, { withFileTypes: true })
    .filter((d) => d.isDirectory() && existsSync(path.join(resultsDir, d.name, 'verdict.json')))
    .map((d) => d.name)
    .sort()
}

export function readMatrix(resultsDir: string, expected: readonly string[]): Matrix {
  const warnings: string[] = []
  const found = foundSlices(resultsDir)
  // expected first, in the order given; then any found that were not
  // expected (a result set is never left out)
  const extra = found.filter((f) => !expected.includes(f))
  if (expected.length > 0 && extra.length > 0)
    warnings.push(
      `results-dir holds results for slices not listed in 'slices': ${extra.join(', ')}; they are included`
    )
  if (expected.length === 0)
    warnings.push(
      "no 'slices' given: the slices are the subdirectories found, so a job that uploaded nothing cannot be named as missing"
    )
  const names = [...expected, ...extra]
  if (names.length > MAX_SLICES)
    throw new Error(`results-dir holds ${names.length} slices; at most ${MAX_SLICES} are merged`)
  const slices = names.map((n) => readSlice(resultsDir, n))
  const status = slices.reduce<Status>((s, x) => worse(s, x.status), 'pass')
  const headline = matrixHeadline(slices, status)
  return {
    slices,
    status,
    headline,
    report: render(slices, status, headline, (s) => s.report, COMMENT_BUDGET),
    fullReport: render(slices, status, headline, (s) => s.fullReport, SUMMARY_BUDGET),
    context: sharedContext(slices, warnings),
    warnings
  }
}

function readSlice(resultsDir: string, name: string): Slice {
  const dir = path.join(resultsDir, name)
  const missing = (why: string): Slice => ({
    name,
    status: 'error',
    headline: why,
    failed: [],
    report: '',
    fullReport: '',
    hasCharts: false,
    context: null
  })
  if (!existsSync(path.join(dir, 'verdict.json')))
    return missing(
      existsSync(dir)
        ? `no verdict.json in its results: the job stopped before a verdict`
        : `no results: the job failed before it measured, or its artifact was not downloaded into ${path.basename(resultsDir)}/${name}`
    )
  let verdict
  try {
    verdict = readVerdict(dir)
  } catch (e) {
    return missing(`unreadable verdict.json: ${e instanceof Error ? e.message : String(e)}`)
  }
  if (verdict === null) return missing('no verdict.json in its results')
  const report = readText(path.join(dir, 'report.md'))
  const full = readText(path.join(dir, 'report-full.md'))
  return {
    name,
    status: verdict.status,
    headline: verdict.headline || verdict.summary || verdict.status,
    failed: verdict.rows.filter((r) => r.state === 'fail').map((r) => r.metric),
    report: withoutMarkers(report),
    fullReport: withoutMarkers(full || report),
    hasCharts: hasFiles(path.join(dir, 'charts')),
    context: readResultsContext(dir)
  }
}

function readText(file: string): string {
  if (!existsSync(file) || statSync(file).size > MAX_REPORT_BYTES) return ''
  return readFileSync(file, 'utf8').replace(/\r\n/g, '\n')
}

function hasFiles(dir: string): boolean {
  return existsSync(dir) && statSync(dir).isDirectory() && readdirSync(dir).length > 0
}

// The report without its comment marker and chart places: a slice's charts
// stay in its artifact.
function withoutMarkers(report: string): string {
  const drop = new Set([REPORT_MARKER, CHARTS_MARKER, CHARTS_MARKER_FOLDED])
  return report
    .split('\n')
    .filter((l) => !drop.has(l.trim()))
    .join('\n')
    .trim()
}

const WORDS: Record<Status, string> = {
  pass: 'passed',
  inconclusive: 'inconclusive',
  fail: 'failed',
  error: 'in error'
}

function matrixHeadline(slices: Slice[], status: Status): string {
  const n = slices.length
  if (status === 'pass') return `${n} of ${n} slices passed`
  const worst = slices.filter((s) => s.status === status).map((s) => s.name)
  const others = (['error', 'fail', 'inconclusive', 'pass'] as const)
    .filter((st) => st !== status)
    .map((st) => [st, slices.filter((s) => s.status === st).length] as const)
    .filter(([, k]) => k > 0)
    .map(([st, k]) => `${k} ${WORDS[st]}`)
  const verb = WORDS[status]
  const names = worst.join(', ')
  const text = `${worst.length} of ${n} slices ${verb}: ${names}${others.length ? `; ${others.join(', ')}` : ''}`
  // at most 140 characters, never cut mid-word
  if (text.length <= 140) return text
  const short = `${worst.length} of ${n} slices ${verb}`
  const room = 140 - short.length - 2
  const kept: string[] = []
  for (const w of worst) {
    if ([...kept, w].join(', ').length + 5 > room) break
    kept.push(w)
  }
  return kept.length > 0 ? `${short}: ${kept.join(', ')}, …` : short
}

// A name or a headline in a table cell: one line, no pipe, no HTML. (Line
// breaks only: the reports put no-break spaces before units.)
function cell(text: string): string {
  return text
    .replace(/[\r\n\t\f\v]+/g, ' ')
    .replace(/\|/g, '\\|')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .slice(0, 300)
}

function render(
  slices: Slice[],
  status: Status,
  headline: string,
  text: (s: Slice) => string,
  budget: number
): string {
  const lines = [
    REPORT_MARKER,
    headingLine(status, cell(headline)),
    '',
    '| slice | verdict | what decided |',
    '|---|---|---|',
    ...slices.map(
      (s) => `| ${cell(s.name)} | ${STATUS_ICONS[s.status]} ${s.status} | ${cell(s.headline)} |`
    ),
    ''
  ]
  const share = Math.floor(budget / Math.max(slices.length, 1))
  // The first slice that decided the matrix opens, down to its first folded
  // part (its headline, what differs, its findings); the rest of it and the
  // other slices stay folded, as the table above names what decided each.
  // Every fail open made a comment twice a screen's height (3,839 px).
  const opened =
    status === 'pass' ? undefined : slices.find((s) => s.status === status && text(s) !== '')
  for (const s of slices) {
    const body = fitted(text(s), share)
    if (body === '') continue
    const summary = `<summary>${STATUS_ICONS[s.status]} <b>${cell(s.name)}</b>: ${s.status}</summary>`
    if (s === opened) {
      const [top, rest] = splitAtFolded(body)
      lines.push(`<details open>${summary}`, '', top, '')
      if (rest !== '')
        lines.push(
          `<details><summary>The rest of ${cell(s.name)}'s report</summary>`,
          '',
          rest,
          '',
          '</details>',
          ''
        )
      lines.push('</details>', '')
    } else lines.push(`<details>${summary}`, '', body, '', '</details>', '')
  }
  if (slices.some((s) => s.hasCharts))
    lines.push("Each slice's charts are in its results artifact.")
  return `${lines.join('\n').trimEnd()}\n`
}

// A report in two: what comes before its first <details> (outside a code
// block), and the rest.
export function splitAtFolded(report: string): [string, string] {
  const lines = report.split('\n')
  let fence = false
  for (let i = 0; i < lines.length; i++) {
    if (lines[i].startsWith('```')) fence = !fence
    else if (!fence && lines[i].startsWith('<details'))
      return [lines.slice(0, i).join('\n').trimEnd(), lines.slice(i).join('\n').trim()]
  }
  return [report.trimEnd(), '']
}

// A report cut to max characters at a line, with what it opened closed again:
// an open code fence, then unclosed <details>.
export function fitted(report: string, max: number): string {
  if (report.length <= max) return report
  const note = "\n\n… cut here: the slice's whole report is in its results artifact"
  const room = Math.max(max - note.length - 200, 0)
  const at = report.lastIndexOf('\n', room)
  let kept = report.slice(0, at > 0 ? at : room)
  if ((kept.match(/^```/gm) ?? []).length % 2 === 1) kept += '\n```'
  const opened = (kept.match(/<details[\s>]/g) ?? []).length
  const closed = (kept.match(/<\/details>/g) ?? []).length
  kept += note
  for (let i = closed; i < opened; i++) kept += '\n\n</details>'
  return kept
}

// The pull request the slices name: one (pull request, commit) for all that
// name one, else none (a workflow_run publish then cannot pick one).
function sharedContext(slices: Slice[], warnings: string[]): ResultsContext | null {
  const named = slices.flatMap((s) => (s.context !== null ? [s.context] : []))
  const keys = new Set(named.map((c) => `${c.pull_request}@${c.head_sha}`))
  if (keys.size > 1) {
    warnings.push(
      `the slices' results name different pull requests or commits (${[...keys].join(', ')}); none is taken from them`
    )
    return null
  }
  return named[0] ?? null
}

// The step's outputs for a matrix: the worst status, its headline, and the
// failed rows named by slice ("slice: metric"). The per-op ratios belong to
// one configuration, so they are empty.
export function matrixOutputs(m: Matrix): VerdictOutputs {
  const failed = m.slices.flatMap((s) => s.failed.map((f) => `${s.name}: ${f}`))
  return {
    verdict: m.status,
    summary: `${m.status}: ${m.headline}`,
    timePerOpRatio: '',
    readsPerOpRatio: '',
    writesPerOpRatio: '',
    regressions: String(failed.length),
    regressedMetrics: JSON.stringify(failed)
  }
}
