// One run of the default branch as the data branch keeps it: this run's
// per-AFP-op aggregates and per-test counts (verdict.json's current side) and
// where they were measured. A few KB, written once and never rewritten, so the
// branch grows by one small file per run (docs/history.md).
//
// Records are read back from a branch that anyone with write access to the
// repository can change: parseRecord checks every field and bounds every size.

import type { Verdict } from './verdict.js'

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
}

export interface RecordSource {
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

function provenanceOf(current: Json): Provenance {
  const p = obj(current.provenance)
  const netatalk = obj(p.netatalk)
  const runner = obj(p.runner)
  const cores = typeof runner.cores === 'number' ? `, ${runner.cores} cores` : ''
  return {
    netatalk: str(netatalk.version, 60),
    build: str(netatalk.build, 80),
    afpConf: str(p.afp_conf_sha256, 64),
    ...(typeof p.afp_conf_settings === 'string'
      ? { afpConfSettings: str(p.afp_conf_settings, 300) }
      : {}),
    runner: `${str(runner.cpu_model, 100) || 'unknown CPU'}${cores}${runner.container === true ? ', container' : ''}`,
    suite: str(p.suite_version, 100)
  }
}

// The record of a run from its verdict (and verdict.json's raw "current" side
// for the provenance). Rows without a figure are left out.
export function recordFromVerdict(
  verdict: Verdict,
  current: unknown,
  from: RecordSource
): HistoryRecord {
  const aggregates: Record<string, Aggregate> = {}
  const tests: Record<string, number> = {}
  for (const row of verdict.rows) {
    if (row.current === null || !NAME.test(row.metric)) continue
    if (row.group === 'aggregate') {
      if (Object.keys(aggregates).length < MAX_AGGREGATES)
        aggregates[row.metric] = {
          v: row.current,
          kind: row.kind,
          unit: row.unit,
          ...(row.floor !== null && row.floor > 0 ? { floor: row.floor } : {})
        }
    } else if (isCountKind(row.kind) && Object.keys(tests).length < MAX_TEST_ROWS) {
      tests[row.metric] = row.current
    }
  }
  return {
    schema: RECORD_SCHEMA,
    commit: from.commit,
    date: from.date,
    runId: from.runId,
    key: from.key,
    release: from.release,
    provenance: provenanceOf(obj(current)),
    aggregates,
    tests
  }
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
    tests
  }
}
