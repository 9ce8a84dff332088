// The default branch's history as the gate draws and reports it: trend.json
// (schema afpbench-trend/1, docs/history.md), the points of the last runs,
// the newest release's figures and the steps found in the count series. The
// gate (scripts/plot, scripts/jq/report.jq) adds this run's own figures from
// its verdict, draws the chart and writes the report's Trend section.

import { findSteps } from './drift.js'
import { isCountKind, type HistoryRecord } from './history-record.js'
import type { History } from './history-store.js'

export const TREND_SCHEMA = 'afpbench-trend/1'

export interface TrendPoint {
  commit: string
  date: string
  release: string
  values: Record<string, number>
}

export interface DriftStep {
  metric: string
  unit: string
  commit: string // where the new level begins
  date: string
  before: number
  after: number
  change: number | null // after / before - 1; null from 0
}

export interface Trend {
  schema: typeof TREND_SCHEMA
  branch: string // the default branch the history is of
  dataBranch: string
  key: string
  points: TrendPoint[] // oldest first
  units: Record<string, string>
  kinds: Record<string, string>
  release: TrendPoint | null
  drift: DriftStep[]
  chart: string[] // the series the chart draws
  compare: string[] // the counts the "since the last release" line compares
  labels: Record<string, string> // how the chart and the report name each metric
  driftLines: string[] // the steps, as the report shows them (Markdown)
  page?: string // the history page's address (page-url.ts); absent: none
}

// The series the chart draws: the per-op counts that gate, then the time per
// op as trend only (timings move with the runner). At most six lines.
const CHART = [
  'aggregate.afpd_r_per_op',
  'aggregate.afpd_w_per_op',
  'aggregate.afpd_sys_total_per_op',
  'aggregate.cnid_sys_total_per_op',
  'aggregate.afpd_instr_per_op',
  'aggregate.time_per_op'
]
// Kinds of count that are the same on every run of the same code: a step
// between two runs is real (instructions vary by about 1 %).
const EXACT_KINDS = ['io', 'sys']
// The runs a series needs before its own noise tells a step.
const MIN_NOISY_RUNS = 4
// The counts "since the last release" compares.
const COMPARE = [
  'aggregate.afpd_r_per_op',
  'aggregate.afpd_w_per_op',
  'aggregate.afpd_sys_total_per_op',
  'aggregate.afpd_instr_per_op'
]

function point(r: HistoryRecord): TrendPoint {
  const values: Record<string, number> = {}
  for (const [m, a] of Object.entries(r.aggregates)) values[m] = a.v
  return { commit: r.commit, date: r.date, release: r.release, values }
}

// Steps in each count series of the records (oldest first).
export function driftOf(records: HistoryRecord[]): DriftStep[] {
  const steps: DriftStep[] = []
  // the newest record with figures names the series (a skipped one has none)
  const last = [...records].reverse().find((r) => Object.keys(r.aggregates).length > 0)
  if (last === undefined) return steps
  for (const [metric, agg] of Object.entries(last.aggregates)) {
    if (!isCountKind(agg.kind)) continue
    // the runs that measured this metric, in order; an exact count (IO,
    // system calls) steps between two runs, the others need four to tell a
    // level from noise
    const runs = records.filter((r) => r.aggregates[metric] !== undefined)
    const exact = EXACT_KINDS.includes(agg.kind)
    if (runs.length < (exact ? 2 : MIN_NOISY_RUNS)) continue
    // the verdict's own floor for the row: the largest of the runs' (a run
    // of fewer AFP ops has a larger one per op)
    const floor = Math.max(0, ...runs.map((r) => r.aggregates[metric].floor ?? 0))
    for (const s of findSteps(
      runs.map((r) => r.aggregates[metric].v),
      undefined,
      floor,
      !exact || runs.length >= MIN_NOISY_RUNS
    )) {
      const at = runs[s.index]
      steps.push({
        metric,
        unit: agg.unit,
        commit: at.commit,
        date: at.date,
        before: s.before,
        after: s.after,
        change: s.before !== 0 ? s.after / s.before - 1 : null
      })
    }
  }
  return steps
}

export interface FoundStep extends DriftStep {
  previous: string // the record before it in its series: where the old level ends ('' at none)
}

// The steps of a backfill's records, in the order given (history-cli.js
// steps): a record without figures (a commit that was skipped) is no point
// of any series.
export function stepsOf(records: HistoryRecord[]): FoundStep[] {
  const measured = records.filter((r) => Object.keys(r.aggregates).length > 0)
  return driftOf(measured).map((s) => {
    const at = measured.findIndex((r) => r.commit === s.commit)
    const before = measured
      .slice(0, at)
      .reverse()
      .find((r) => r.aggregates[s.metric] !== undefined)
    return { ...s, previous: before?.commit ?? '' }
  })
}

export function buildTrend(
  history: History,
  where: { branch: string; dataBranch: string; key: string; serverRepo: string; page?: string }
): Trend {
  const drift = driftOf(history.records)
  const records = history.records
  const units: Record<string, string> = {}
  const kinds: Record<string, string> = {}
  const last = records[records.length - 1]
  for (const [m, a] of Object.entries(last?.aggregates ?? {})) {
    units[m] = a.unit
    kinds[m] = a.kind
  }
  return {
    schema: TREND_SCHEMA,
    branch: where.branch,
    dataBranch: where.dataBranch,
    key: where.key,
    points: records.map(point),
    units,
    kinds,
    release: history.release === null ? null : point(history.release),
    drift,
    chart: CHART.filter((m) => kinds[m] !== undefined),
    compare: COMPARE.filter((m) => kinds[m] !== undefined),
    labels: Object.fromEntries(Object.keys(kinds).map((m) => [m, metricLabel(m)])),
    driftLines: driftLines(drift, where.serverRepo),
    ...(where.page ? { page: where.page } : {})
  }
}

// A metric's name as a reader says it: "afpd stat calls/op".
export function metricLabel(metric: string): string {
  const m = metric.replace(/^aggregate\./, '').replace(/_per_op$/, '')
  const named: Record<string, string> = {
    time: 'time',
    afpd_cpu: 'afpd CPU',
    cnid_cpu: 'cnid_dbd CPU',
    afpd_r: 'afpd reads',
    afpd_w: 'afpd writes',
    cnid_r: 'cnid_dbd reads',
    cnid_w: 'cnid_dbd writes',
    afpd_instr: 'afpd instructions'
  }
  if (named[m] !== undefined) return `${named[m]}/op`
  const sys = /^(afpd|cnid)_sys_(.+)$/.exec(m)
  if (sys) {
    const proc = sys[1] === 'cnid' ? 'cnid_dbd' : 'afpd'
    return sys[2] === 'total' ? `${proc} system calls/op` : `${proc} ${sys[2]} calls/op`
  }
  // reads and writes by descriptor kind (names.jq fd_label)
  const fd = /^(afpd|cnid)_(file|net|unix|pipe|other)_([rw])$/.exec(m)
  if (fd) {
    const proc = fd[1] === 'cnid' ? 'cnid_dbd' : 'afpd'
    const kinds: Record<string, string> = { net: 'network', unix: 'local socket' }
    const kind = kinds[fd[2]] ?? fd[2]
    return `${proc} ${kind} ${fd[3] === 'r' ? 'reads' : 'writes'}/op`
  }
  return `${m}/op`
}

// a figure per op, to three significant digits
function num(x: number): string {
  return String(Number(x.toPrecision(3)))
}

function pct(x: number): string {
  const v = x * 100
  return `${v >= 0 ? '+' : '−'}${Math.abs(v).toFixed(Math.abs(v) < 10 ? 1 : 0)} %`
}

// One line per commit that took a step, Markdown, each commit named once:
// "**[abc1234](…)** (2026-11-02): afpd stat calls/op +2.0 %, afpd system
// calls/op +1.1 %". The report's Trend section (through trend.json) and the
// job summary show the same lines.
const MAX_METRICS_PER_LINE = 4
export function driftLines(steps: DriftStep[], serverRepo: string): string[] {
  const byCommit = new Map<string, DriftStep[]>()
  for (const s of steps) byCommit.set(s.commit, [...(byCommit.get(s.commit) ?? []), s])
  const link = (c: string): string =>
    serverRepo !== '' ? `[${c.slice(0, 7)}](${serverRepo}/commit/${c})` : `\`${c.slice(0, 7)}\``
  const size = (s: DriftStep): string => (s.change === null ? `0 → ${num(s.after)}` : pct(s.change))
  return [...byCommit]
    .sort((a, b) => a[1][0].date.localeCompare(b[1][0].date))
    .map(([commit, ss]) => {
      // the largest moves first
      const moves = [...ss].sort(
        (a, b) => Math.abs(b.change ?? Infinity) - Math.abs(a.change ?? Infinity)
      )
      const shown = moves
        .slice(0, MAX_METRICS_PER_LINE)
        .map((s) => `${metricLabel(s.metric)} ${size(s)}`)
      const more = moves.length - shown.length
      return `**${link(commit)}** (${ss[0].date.slice(0, 10)}): ${shown.join(', ')}${more > 0 ? `, and ${more} more` : ''}`
    })
}

// The steps found, for the job summary of a default-branch run.
export function driftMarkdown(steps: DriftStep[], branch: string, serverRepo: string): string {
  if (steps.length === 0) return ''
  return [
    `### Steps in ${branch}'s history`,
    '',
    "Each line is a level that changed at one commit and stayed changed: a step under a gate's limit passes its pull request, and several add up (docs/history.md).",
    '',
    ...driftLines(steps, serverRepo).map((l) => `- ${l}`),
    ''
  ].join('\n')
}
