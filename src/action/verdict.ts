// verdict.json (written by scripts/gate) read as untrusted input: in publish
// mode it comes from an artifact that a fork's workflow produced.

import { existsSync, readFileSync, statSync } from 'node:fs'
import path from 'node:path'

export const STATUSES = ['pass', 'inconclusive', 'fail', 'error'] as const
export type Status = (typeof STATUSES)[number]

// A verdict's icon, as scripts/jq/words.jq's icon gives it (verdict.test.ts
// holds the two together).
export const STATUS_ICONS: Record<Status, string> = {
  pass: '✅',
  inconclusive: '⚠️',
  fail: '❌',
  error: '⛔'
}

// The heading of a comment: "### ❌ afpbench: **fail** — HEADLINE". report.jq
// writes the gate's; this one writes the comments the action makes itself (a
// matrix's, a run's that wrote no report).
export function headingLine(status: Status, headline: string): string {
  return `### ${STATUS_ICONS[status]} afpbench: **${status}**${headline !== '' ? ` — ${headline}` : ''}`
}

export interface VerdictRow {
  metric: string
  ratio: number | null
  state: string
  group: string // "aggregate", "lantest", "speedtest", "load"
  kind: string // "io", "sys", "instr" (counts), "time", "cpu", … (docs/verdict-format.md)
  unit: string
  current: number | null // this run's median (the head's in A/B)
  floor: number | null // counts: the smallest move the row decides on, in its unit
}

export interface Verdict {
  status: Status
  summary: string
  headline: string // the one headline (Markdown, escaped by scripts/compare); '' before it had one
  icon: string
  decidedBy: string
  errors: string[]
  rows: VerdictRow[]
}

const MAX_VERDICT_BYTES = 16 * 1024 * 1024
const MAX_TEXT = 2000

export class VerdictError extends Error {}

// A string from verdict.json (in publish mode, from another job's artifact)
// as one safe line: control characters (CR/LF included, so no log line can
// start a workflow command such as "::set-output"), DEL and the C1 controls
// become \xHH.
function text(v: unknown, max = MAX_TEXT): string {
  if (typeof v !== 'string') return ''
  // Replacing control characters is the point of this pattern.
  // eslint-disable-next-line no-control-regex
  return v.slice(0, max).replace(/[\u0000-\u001f\u007f-\u009f]/g, (c) => {
    return `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`
  })
}

function finite(v: unknown): number | null {
  return typeof v === 'number' && Number.isFinite(v) ? v : null
}

export function parseVerdict(json: string, where: string): Verdict {
  let data: unknown
  try {
    data = JSON.parse(json)
  } catch (e) {
    throw new VerdictError(`${where} is not JSON: ${e instanceof Error ? e.message : String(e)}`)
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data))
    throw new VerdictError(`${where} is not a JSON object`)
  const v = data as Record<string, unknown>
  const status = v.status
  if (typeof status !== 'string' || !(STATUSES as readonly string[]).includes(status))
    throw new VerdictError(
      `${where}: "status" is ${JSON.stringify(status)}, not one of ${STATUSES.join(', ')}`
    )
  if (v.rows !== undefined && !Array.isArray(v.rows))
    throw new VerdictError(`${where}: "rows" is not an array`)
  const rows: VerdictRow[] = []
  for (const [i, r] of ((v.rows as unknown[] | undefined) ?? []).entries()) {
    if (typeof r !== 'object' || r === null)
      throw new VerdictError(`${where}: rows[${i}] is not an object`)
    const row = r as Record<string, unknown>
    rows.push({
      metric: text(row.metric, 200),
      ratio: finite(row.ratio),
      state: text(row.state, 50),
      group: text(row.group, 50),
      kind: text(row.kind, 50),
      unit: text(row.unit, 50),
      current: finite(row.current),
      floor: finite(row.floor)
    })
  }
  const errors = Array.isArray(v.errors) ? v.errors.map((e) => text(e)).filter((e) => e !== '') : []
  return {
    status: status as Status,
    summary: text(v.summary),
    headline: text(v.headline, 400),
    icon: text(v.icon, 8),
    decidedBy: text(v.decided_by),
    errors: errors.slice(0, 50),
    rows
  }
}

export function readVerdict(resultsDir: string): Verdict | null {
  const file = path.join(resultsDir, 'verdict.json')
  if (!existsSync(file)) return null
  if (statSync(file).size > MAX_VERDICT_BYTES)
    throw new VerdictError(`${file} is larger than ${MAX_VERDICT_BYTES} bytes`)
  return parseVerdict(readFileSync(file, 'utf8'), file)
}

// The worse of two statuses (error > fail > inconclusive > pass).
export function worse(a: Status, b: Status): Status {
  return STATUSES.indexOf(a) >= STATUSES.indexOf(b) ? a : b
}

// scripts/gate's exit status as a verdict status (0 pass, 1 fail,
// 2 inconclusive, anything else an error).
export function statusFromExit(code: number): Status {
  return code === 0 ? 'pass' : code === 1 ? 'fail' : code === 2 ? 'inconclusive' : 'error'
}

const AGGREGATES = {
  time: 'aggregate.time_per_op',
  reads: 'aggregate.afpd_r_per_op',
  writes: 'aggregate.afpd_w_per_op'
} as const

export interface VerdictOutputs {
  verdict: Status
  summary: string
  timePerOpRatio: string
  readsPerOpRatio: string
  writesPerOpRatio: string
  regressions: string // how many rows failed
  regressedMetrics: string // JSON array of their metric names
}

function ratioOf(v: Verdict, metric: string): string {
  const row = v.rows.find((r) => r.metric === metric)
  return row && row.ratio !== null ? formatRatio(row.ratio) : ''
}

// Ratios as plain decimals (no exponent), enough digits to compare with a
// threshold: 1.0234.
export function formatRatio(r: number): string {
  return String(Number(r.toFixed(4)))
}

export function verdictOutputs(v: Verdict): VerdictOutputs {
  const failed = v.rows.filter((r) => r.state === 'fail').map((r) => r.metric)
  return {
    verdict: v.status,
    summary: v.summary,
    timePerOpRatio: ratioOf(v, AGGREGATES.time),
    readsPerOpRatio: ratioOf(v, AGGREGATES.reads),
    writesPerOpRatio: ratioOf(v, AGGREGATES.writes),
    regressions: String(failed.length),
    regressedMetrics: JSON.stringify(failed)
  }
}
