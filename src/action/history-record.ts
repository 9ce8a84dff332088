// One run of the default branch as the data branch keeps it: this run's
// per-AFP-op aggregates and per-test counts (verdict.json's current side) and
// where they were measured. A few KB, written once and never rewritten, so the
// branch grows by one small file per run (docs/history.md).
//
// Records are read back from a branch that anyone with write access to the
// repository can change: parseRecord checks every field and bounds every size.

import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

export const RECORD_SCHEMA = 'afpbench-history/1'
export const MAX_RECORD_BYTES = 256 * 1024
const MAX_TEST_ROWS = 600
const MAX_AGGREGATES = 80
const NAME = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,199}$/

// The kinds of row that count work rather than time it: the same on every
// machine for the same software, so a history of them is exact.
export const COUNT_KINDS = ['io', 'sys', 'instr'] as const

export interface Aggregate {
  v: number
  kind: string
  unit: string
  floor?: number // counts: the verdict's floor for the row (its smallest deciding move)
}

export interface Provenance {
  netatalk: string // version, e.g. "4.4.0"
  build: string // what the gate was told of a source build (AFPBENCH_NETATALK_BUILD), ''
  afpConf: string // sha256 of the server's afp.conf, ''
  afpConfSettings?: string // the settings under test it served ("ea = ad; ..."), absent: none known
  runner: string // "cpu model, N cores[, container]"
  suite: string // suite_version
}

export interface HistoryRecord {
  schema: typeof RECORD_SCHEMA
  commit: string // the commit measured (40 hex)
  date: string // when it was measured (ISO 8601)
  runId: number | null
  key: string // comment-key: one series per configuration of a matrix
  release: string // the tag, when the run measured a release; ''
  provenance: Provenance
  aggregates: Record<string, Aggregate> // aggregate.* rows with a figure
  tests: Record<string, number> // per-test count rows (COUNT_KINDS)
  subject?: string
  source?: RecordSource
  reused_from?: string
  skip_reason?: string
  steps?: RecordStep[]
}

export interface RecordFrom {
  commit: string
  date: string
  runId: number | null
  key: string
  release: string
}

type Json = Record<string, unknown>

function obj(v: unknown): Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Json) : {}
}
function str(v: unknown, max = 200): string {
  // printable ASCII and common text only: these strings reach the comment
  return typeof v === 'string'
    ? v.slice(0, max).replace(/[^\x20-\x7e\u00b5\u00a0-\u024f]/g, '?')
    : ''
}

export function isCountKind(kind: string): boolean {
  return (COUNT_KINDS as readonly string[]).includes(kind)
}

// What the data branch records beside a run's figures, all optional (absent:
// a run the action measured): what a backfill (scripts/backfill) says of a
// commit it did not measure, and the steps found at it.
export type RecordSource = 'measured' | 'reused' | 'skipped'

export interface StepCall {
  call: string
  before: number
  after: number
}

export interface RecordStep {
  metric: string
  before: number
  after: number
  commands: { command: string; calls: StepCall[] }[] // the AFP commands behind it
  site: string // the code site the traces name, ''
}

export interface RecordExtras {
  subject?: string // the commit's subject
  source?: RecordSource
  reused_from?: string // source reused: the commit whose measurement this is
  skip_reason?: string // source skipped: why it has no figures
  steps?: RecordStep[] // what moved at this commit against the record before it
}

const SOURCES: readonly RecordSource[] = ['measured', 'reused', 'skipped']
export const MAX_STEPS = 20
const MAX_STEP_COMMANDS = 10
const MAX_STEP_CALLS = 10

// scripts/jq/record.jq, the one maker of records (scripts/backfill calls it
// too): found from this module, which runs from dist/ or src/action/.
export function recordJq(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url))
  for (let up = 0; up < 4; up++) {
    const file = path.join(dir, 'scripts', 'jq', 'record.jq')
    if (existsSync(file)) return file
    dir = path.dirname(dir)
  }
  throw new Error('scripts/jq/record.jq not found beside the action')
}

// The record of a run from its verdict.json (its current side, and the
// provenance), made by record.jq and read back as any record is. Rows
// without a figure are left out.
export function makeRecord(
  verdictFile: string | null, // null: a commit with no figures (skipped)
  from: RecordFrom,
  extras: RecordExtras = {}
): HistoryRecord {
  const r = spawnSync(
    'jq',
    [
      '-c',
      '-f',
      recordJq(),
      '--arg',
      'commit',
      from.commit,
      '--arg',
      'date',
      from.date,
      '--argjson',
      'run_id',
      JSON.stringify(from.runId),
      '--arg',
      'key',
      from.key,
      '--arg',
      'release',
      from.release,
      '--argjson',
      'extra',
      JSON.stringify(extras),
      ...(verdictFile === null ? ['-n'] : [verdictFile])
    ],
    { encoding: 'utf8', maxBuffer: 4 * MAX_RECORD_BYTES, timeout: 60_000 }
  )
  if (r.error !== undefined) throw new Error(`jq (record.jq) did not run: ${r.error.message}`)
  if (r.status !== 0)
    throw new Error(
      `record.jq failed on ${verdictFile ?? 'no verdict'}: ${(r.stderr ?? '').trim().slice(0, 300)}`
    )
  return parseRecord(r.stdout, `the record of ${verdictFile ?? from.commit}`)
}

export class RecordError extends Error {}

// A record read back from the data branch, checked; throws RecordError.
export function parseRecord(text: string, where: string): HistoryRecord {
  if (text.length > MAX_RECORD_BYTES)
    throw new RecordError(`${where} is larger than ${MAX_RECORD_BYTES} bytes`)
  let data: unknown
  try {
    data = JSON.parse(text)
  } catch (e) {
    throw new RecordError(`${where} is not JSON: ${e instanceof Error ? e.message : String(e)}`)
  }
  const r = obj(data)
  if (r.schema !== RECORD_SCHEMA)
    throw new RecordError(`${where}: schema is ${JSON.stringify(r.schema)}, not ${RECORD_SCHEMA}`)
  const commit = str(r.commit, 40)
  if (!/^[0-9a-f]{40}$/.test(commit)) throw new RecordError(`${where}: commit is not 40 hex digits`)
  const date = str(r.date, 40)
  if (Number.isNaN(Date.parse(date))) throw new RecordError(`${where}: date is not a date`)
  const aggregates: Record<string, Aggregate> = {}
  for (const [metric, a] of Object.entries(obj(r.aggregates)).slice(0, MAX_AGGREGATES)) {
    const agg = obj(a)
    if (NAME.test(metric) && typeof agg.v === 'number' && Number.isFinite(agg.v))
      aggregates[metric] = {
        v: agg.v,
        kind: str(agg.kind, 20),
        unit: str(agg.unit, 20),
        ...(typeof agg.floor === 'number' && Number.isFinite(agg.floor) && agg.floor > 0
          ? { floor: agg.floor }
          : {})
      }
  }
  const tests: Record<string, number> = {}
  for (const [metric, v] of Object.entries(obj(r.tests)).slice(0, MAX_TEST_ROWS))
    if (NAME.test(metric) && typeof v === 'number' && Number.isFinite(v)) tests[metric] = v
  const p = obj(r.provenance)
  return {
    schema: RECORD_SCHEMA,
    commit,
    date: new Date(date).toISOString(),
    runId: typeof r.runId === 'number' && Number.isSafeInteger(r.runId) ? r.runId : null,
    key: str(r.key, 100),
    release: str(r.release, 100),
    provenance: {
      netatalk: str(p.netatalk, 60),
      build: str(p.build, 80),
      afpConf: str(p.afpConf, 64),
      ...(typeof p.afpConfSettings === 'string'
        ? { afpConfSettings: str(p.afpConfSettings, 300) }
        : {}),
      runner: str(p.runner, 140),
      suite: str(p.suite, 100)
    },
    aggregates,
    tests,
    ...extrasOf(r)
  }
}

function finiteNum(v: unknown): v is number {
  return typeof v === 'number' && Number.isFinite(v)
}

function list(v: unknown, max: number): Json[] {
  return (Array.isArray(v) ? v : [])
    .filter((x) => typeof x === 'object' && x !== null && !Array.isArray(x))
    .slice(0, max) as Json[]
}

// The optional fields, each checked and bounded; one that fails is left out.
function extrasOf(r: Json): RecordExtras {
  const x: RecordExtras = {}
  const subject = str(r.subject, 200)
  if (subject !== '') x.subject = subject
  if (SOURCES.includes(r.source as RecordSource) && r.source !== 'measured')
    x.source = r.source as RecordSource
  if (typeof r.reused_from === 'string' && /^[0-9a-f]{40}$/.test(r.reused_from))
    x.reused_from = r.reused_from
  const why = str(r.skip_reason, 300)
  if (why !== '') x.skip_reason = why
  const steps: RecordStep[] = []
  for (const s of list(r.steps, MAX_STEPS)) {
    if (typeof s.metric !== 'string' || !NAME.test(s.metric)) continue
    if (!finiteNum(s.before) || !finiteNum(s.after)) continue
    steps.push({
      metric: s.metric,
      before: s.before,
      after: s.after,
      commands: list(s.commands, MAX_STEP_COMMANDS).map((c) => ({
        command: str(c.command, 60),
        calls: list(c.calls, MAX_STEP_CALLS)
          .filter((k) => finiteNum(k.before) && finiteNum(k.after))
          .map((k) => ({
            call: str(k.call, 40),
            before: k.before as number,
            after: k.after as number
          }))
      })),
      site: str(s.site, 200)
    })
  }
  if (steps.length > 0) x.steps = steps
  return x
}
