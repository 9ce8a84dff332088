// The history page's data from a key's records: every row (the aggregates of
// every kind, every per-test count), each run's commit, subject, release and
// attribution, and the steps found in every count row by the history's own
// rule (trend.ts driftOf, drift.ts findSteps, with the verdict's floor). Deterministic: the same
// records give the same bytes, so a full chunk's file never changes and a
// rewrite of the page stores only what is new.

import { isCountKind, type HistoryRecord } from '../action/history-record.js'
import { driftOf, metricLabel } from '../action/trend.js'
import {
  chunkFile,
  CHUNK_RUNS,
  encodeChunk,
  encodeKey,
  MAX_PAGE_STEPS,
  MAX_ROWS,
  MAX_RUNS,
  PAGE_SCHEMA,
  type Chunk,
  type KeyData,
  type KeySummary,
  type PageIndex,
  type PageRun,
  type PageStep,
  type Row
} from './page-data.js'
import type { PageRecord } from './page-record.js'

// ---- rows ---------------------------------------------------------------

// "lantest.9.afpd_sys_stat" -> { test: "lantest 9", family: "afpd_sys_stat" };
// "aggregate.afpd_sys_stat_per_op" -> { test: "aggregate", family: "afpd_sys_stat" }
export function rowParts(metric: string): { test: string; family: string } {
  if (metric.startsWith('aggregate.'))
    return { test: 'aggregate', family: metric.slice(10).replace(/_per_op$/, '') }
  const m = /^([A-Za-z]+)\.(\d+)\.(.+)$/.exec(metric)
  if (m) return { test: `${m[1]} ${m[2]}`, family: m[3].replace(/_per_op$/, '') }
  const dot = metric.lastIndexOf('.')
  return dot > 0
    ? { test: metric.slice(0, dot), family: metric.slice(dot + 1) }
    : { test: '', family: metric }
}

// A per-test count's kind and unit (records keep only its figure): the
// names the verdict gives them (docs/results-format.md).
function testRowKind(family: string, metric: string): { kind: string; unit: string } {
  if (/_instr$/.test(family)) return { kind: 'instr', unit: 'instr/op' }
  if (/_sys_/.test(family)) return { kind: 'sys', unit: 'syscalls' }
  if (/_(r|w)char$/.test(family)) return { kind: 'io', unit: 'bytes' }
  return { kind: 'io', unit: metric.endsWith('_per_op') ? 'syscalls/op' : 'syscalls' }
}

// The verdict's floor of a per-test count row (scripts/jq/counts.jq
// count_floor): fifty cnid_dbd system calls, five cnid_dbd reads or writes,
// one of anything else. A step must move by more.
export function testFloor(metric: string): number {
  if (/\.cnid_sys_/.test(metric)) return 50
  if (/\.cnid_((file|net|unix|pipe|other)_)?[rw](_per_op)?$/.test(metric)) return 5
  return 1
}

export function rowLabel(metric: string): string {
  const { test, family } = rowParts(metric)
  const name = metricLabel(`aggregate.${family}_per_op`)
  if (test === 'aggregate') return name
  return `${test} · ${metric.endsWith('_per_op') ? name : name.replace(/\/op$/, '')}`
}

// Aggregates first, then each test's rows, tests in order (lantest 2 before
// lantest 10); within a test, the order the newest records give them (the
// verdict's).
function testRank(test: string): [number, string, number] {
  if (test === 'aggregate') return [0, '', 0]
  const m = /^(.*) (\d+)$/.exec(test)
  return m ? [1, m[1], Number(m[2])] : [1, test, 0]
}

function compareRows(a: Row & { seen: number }, b: Row & { seen: number }): number {
  const [ga, sa, na] = testRank(a.test)
  const [gb, sb, nb] = testRank(b.test)
  return ga - gb || (sa < sb ? -1 : sa > sb ? 1 : 0) || na - nb || a.seen - b.seen
}

function rowsOf(records: PageRecord[]): Row[] {
  const rows = new Map<string, Row & { seen: number }>()
  const add = (metric: string, kind: string, unit: string): void => {
    if (rows.has(metric) || rows.size >= MAX_ROWS) return
    const { test, family } = rowParts(metric)
    rows.set(metric, {
      metric,
      kind,
      unit,
      label: rowLabel(metric),
      test,
      family,
      floor: 0,
      seen: rows.size
    })
  }
  for (const { record } of [...records].reverse()) {
    for (const [m, a] of Object.entries(record.aggregates)) add(m, a.kind, a.unit)
    for (const m of Object.keys(record.tests)) {
      const { kind, unit } = testRowKind(rowParts(m).family, m)
      add(m, kind, unit)
    }
  }
  for (const row of rows.values()) {
    // an aggregate's floor: the largest of the runs' (a run of fewer AFP ops
    // has a larger one per op), as the trend takes it (trend.ts driftOf)
    row.floor =
      row.test === 'aggregate' ? aggregateFloor(records, row.metric) : testFloor(row.metric)
  }
  return [...rows.values()].sort(compareRows).map((r) => ({
    metric: r.metric,
    kind: r.kind,
    unit: r.unit,
    label: r.label,
    test: r.test,
    family: r.family,
    floor: r.floor
  }))
}

function aggregateFloor(records: PageRecord[], metric: string): number {
  let floor = 0
  for (const { record } of records) floor = Math.max(floor, record.aggregates[metric]?.floor ?? 0)
  return floor
}

function valueOf(r: PageRecord, metric: string): number | null {
  return r.record.aggregates[metric]?.v ?? r.record.tests[metric] ?? null
}

// ---- steps --------------------------------------------------------------

// The record's own step for a row: the same metric, else the same family
// (a backfill attributes the per-op aggregate; its tests' rows moved with it).
function attributionIndex(run: PageRun, row: Row): number {
  const exact = run.steps.findIndex((s) => s.metric === row.metric)
  if (exact >= 0) return exact
  return run.steps.findIndex((s) => rowParts(s.metric).family === row.family)
}

// The steps of every count row, by the trend's own rule (trend.ts driftOf:
// findSteps with the row's floor; an exact count, IO or system calls, steps
// between two runs, an instruction count needs four): each row is handed to
// it as the one aggregate of a record per run that has its figure.
function stepsOf(rows: Row[], runs: PageRun[], values: Map<string, (number | null)[]>): PageStep[] {
  const steps: PageStep[] = []
  const at = new Map<string, number>()
  runs.forEach((r, i) => at.set(`${r.commit} ${r.date}`, i))
  for (const row of rows) {
    // counts only: timings move with the runner and are drawn, never searched
    if (!isCountKind(row.kind)) continue
    const xs = values.get(row.metric) ?? []
    const series: HistoryRecord[] = []
    xs.forEach((v, i) => {
      if (v === null) return
      const r = runs[i]
      series.push({
        schema: 'afpbench-history/1',
        commit: r.commit,
        date: r.date,
        runId: r.runId,
        key: '',
        release: '',
        provenance: r.provenance,
        aggregates: {
          [row.metric]: {
            v,
            kind: row.kind,
            unit: row.unit,
            ...(row.floor > 0 ? { floor: row.floor } : {})
          }
        },
        tests: {}
      })
    })
    for (const s of driftOf(series)) {
      const run = at.get(`${s.commit} ${s.date}`)
      if (run === undefined) continue
      if (steps.length >= MAX_PAGE_STEPS) return steps
      steps.push({
        metric: row.metric,
        at: run,
        before: s.before,
        after: s.after,
        attribution: attributionIndex(runs[run], row)
      })
    }
  }
  return steps
}

// ---- a key's files --------------------------------------------------------

// Runs in measuring order, each once: a run file wins over an archive's copy
// of it (which has no per-test rows).
export function orderRuns(records: PageRecord[]): PageRecord[] {
  const byId = new Map<string, PageRecord>()
  for (const r of records) {
    const had = byId.get(r.run.id)
    if (had === undefined || (had.run.archived && !r.run.archived)) byId.set(r.run.id, r)
  }
  return [...byId.values()]
    .sort((a, b) =>
      a.run.date < b.run.date
        ? -1
        : a.run.date > b.run.date
          ? 1
          : a.run.id < b.run.id
            ? -1
            : a.run.id > b.run.id
              ? 1
              : 0
    )
    .slice(-MAX_RUNS)
}

export interface KeyFiles {
  data: KeyData
  files: Map<string, string> // path under data/<dir>/ -> content
  summary: KeySummary
}

// key.json, rows.json and the chunks of one key, from its records (any order).
export function keyFiles(
  dir: string,
  key: string,
  given: PageRecord[],
  archives: string[] = []
): KeyFiles {
  const records = orderRuns(given)
  const rows = rowsOf(records)
  const runs = records.map((r) => r.run)
  const values = new Map<string, (number | null)[]>(
    rows.map((row) => [row.metric, records.map((r) => valueOf(r, row.metric))])
  )
  const files = new Map<string, string>()
  const chunks: KeyData['chunks'] = []
  for (let c = 0; c * CHUNK_RUNS < runs.length; c++) {
    const lo = c * CHUNK_RUNS
    const hi = Math.min(runs.length, lo + CHUNK_RUNS)
    const part = new Map([...values].map(([m, xs]) => [m, xs.slice(lo, hi)]))
    files.set(chunkFile(c), encodeChunk(runs.slice(lo, hi), part))
    chunks.push({ file: chunkFile(c), runs: hi - lo })
  }
  const data: KeyData = {
    schema: PAGE_SCHEMA,
    key,
    dir,
    runs: runs.length,
    rows,
    chunks,
    steps: stepsOf(rows, runs, values),
    archives: [...new Set(archives)].sort()
  }
  const { key: keyJson, rows: rowsJson } = encodeKey(data)
  files.set('key.json', keyJson)
  files.set('rows.json', rowsJson)
  return {
    data,
    files,
    summary: {
      key,
      dir,
      runs: runs.length,
      first: runs[0]?.date ?? '',
      last: runs[runs.length - 1]?.date ?? ''
    }
  }
}

// A key's runs back from its chunks (the action keeps the page's chunks as its
// copy of the runs: only what the data branch has new is read again).
export function recordsOfChunks(data: KeyData, chunks: Chunk[]): PageRecord[] {
  const kinds = new Map(data.rows.map((r) => [r.metric, r]))
  const out: PageRecord[] = []
  for (const chunk of chunks)
    chunk.runs.forEach((run, i) => {
      const aggregates: PageRecord['record']['aggregates'] = {}
      const tests: Record<string, number> = {}
      for (const [metric, xs] of chunk.values) {
        const v = xs[i]
        const row = kinds.get(metric)
        if (v === null || v === undefined || row === undefined) continue
        if (row.test === 'aggregate')
          aggregates[metric] = {
            v,
            kind: row.kind,
            unit: row.unit,
            ...(row.floor > 0 ? { floor: row.floor } : {})
          }
        else tests[metric] = v
      }
      out.push({
        run,
        record: {
          schema: 'afpbench-history/1',
          commit: run.commit,
          date: run.date,
          runId: run.runId,
          key: data.key,
          release: run.release,
          provenance: run.provenance,
          aggregates,
          tests
        }
      })
    })
  return out
}

export function indexFile(keys: KeySummary[], repoUrl: string): string {
  const index: PageIndex = {
    schema: PAGE_SCHEMA,
    repoUrl,
    keys: [...keys].sort((a, b) => (a.dir < b.dir ? -1 : a.dir > b.dir ? 1 : 0))
  }
  return `${JSON.stringify(index)}\n`
}
