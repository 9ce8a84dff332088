// The history page's data files, shared by the generator (Node) and the page
// (the browser): what they hold, how a series is packed, and the checks that
// read them back. The files are served from a branch anyone with write access
// can change, so decoding checks every field and bounds every string and count.
//
//   data/index.json          the keys (one series of runs per comment-key)
//   data/<dir>/key.json      a key's chunks and the steps found in its rows
//   data/<dir>/rows.json     its rows: name, kind, unit, label, floor
//   data/<dir>/cNNNN.json    CHUNK_RUNS runs: each run's commit, subject,
//                            release, attribution, and every row's figures
//
// Why chunks: the action rewrites the page on every push to the default
// branch. A full chunk never changes again (nor does rows.json, mostly), so a
// push writes the last chunk and key.json, not a file that grows with the
// history (docs/history.md says why a growing file is quadratic in git).
//
// No imports: this module runs in the page too.

export const PAGE_SCHEMA = 'afpbench-page/1'
export const CHUNK_RUNS = 50
// bounds on what a page reads (a chunk of CHUNK_RUNS full runs is ~30 KB)
export const MAX_KEYS = 50
export const MAX_ROWS = 1000
export const MAX_RUNS = 20000
export const MAX_PAGE_STEPS = 4000
export const MAX_FILE_BYTES = 8 * 1024 * 1024
const MAX_RECORD_STEPS = 20
const MAX_STEP_COMMANDS = 10
const MAX_STEP_CALLS = 10

export const SOURCES = ['measured', 'reused', 'skipped'] as const
export type RunSource = (typeof SOURCES)[number]

export interface StepCall {
  call: string
  before: number
  after: number
}

// What a record says moved at its commit, with the AFP commands and the code
// site behind it (a backfill's attribution: docs/history.md).
export interface Attribution {
  metric: string
  before: number
  after: number
  commands: { command: string; calls: StepCall[] }[]
  site: string
}

export interface Provenance {
  netatalk: string
  build: string
  afpConf: string
  runner: string
  suite: string
}

// One run as the page keeps it.
export interface PageRun {
  id: string // the data branch's file name, without .json: unique per run
  commit: string // 40 hex
  date: string // ISO 8601
  runId: number | null
  release: string // the tag of a release's run, ''
  subject: string // the commit's subject, ''
  source: RunSource
  reusedFrom: string // source reused: the commit measured (40 hex), ''
  skipReason: string // source skipped: why there are no figures, ''
  archived: boolean // read from an archive file: aggregates only
  provenance: Provenance
  steps: Attribution[] // the record's own steps, with their attribution
}

export interface Row {
  metric: string
  kind: string // io, sys, instr (counts), time, cpu (trend only)
  unit: string
  label: string // as a reader says it: "lantest 9 · afpd stat calls"
  test: string // "aggregate", "lantest 9", ...
  family: string // the row across tests: "afpd_sys_stat"
  floor: number // the smallest move a step must exceed (the verdict's floor)
}

// A step found in a row's series by the history's rule (drift.ts findSteps).
export interface PageStep {
  metric: string
  at: number // the run index where the new level begins
  before: number
  after: number
  attribution: number // index into runs[at].steps, -1 when the record has none
}

export interface KeyData {
  schema: typeof PAGE_SCHEMA
  key: string // comment-key ('' for the default)
  dir: string // its directory under data/
  runs: number
  rows: Row[]
  chunks: { file: string; runs: number }[]
  steps: PageStep[]
  archives: string[] // the data branch's archive files already in these runs
}

export interface KeySummary {
  key: string
  dir: string
  runs: number
  first: string // date of the oldest run
  last: string // date of the newest
}

export interface PageIndex {
  schema: typeof PAGE_SCHEMA
  repoUrl: string // https://github.com/OWNER/REPO, or '' (no links)
  keys: KeySummary[]
}

export interface Chunk {
  runs: PageRun[]
  values: Map<string, (number | null)[]> // metric -> one figure per run
}

// ---- reading untrusted JSON ----------------------------------------------

type Json = Record<string, unknown>

export class PageDataError extends Error {}

function obj(v: unknown): Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Json) : {}
}
function arr(v: unknown, max: number): unknown[] {
  return Array.isArray(v) ? v.slice(0, max) : []
}
// Printable text only, bounded.
export function text(v: unknown, max = 200): string {
  return typeof v === 'string'
    ? v.slice(0, max).replace(/[^\x20-\x7e\u00a0-\u024f\u00b5]/g, '?')
    : ''
}
function num(v: unknown): number | null {
  return typeof v === 'number' && Number.isFinite(v) ? v : null
}
const HEX40 = /^[0-9a-f]{40}$/
export const METRIC = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,199}$/
const DIR = /^[A-Za-z0-9][A-Za-z0-9._-]{0,59}$/
const CHUNK_FILE = /^c\d{4}\.json$/

export function isDir(s: string): boolean {
  return DIR.test(s)
}

function checkSchema(j: Json, where: string): void {
  if (j.schema !== PAGE_SCHEMA)
    throw new PageDataError(`${where}: schema is ${JSON.stringify(j.schema)}, not ${PAGE_SCHEMA}`)
}

export function parseJson(raw: string, where: string): Json {
  if (raw.length > MAX_FILE_BYTES)
    throw new PageDataError(`${where} is larger than ${MAX_FILE_BYTES} bytes`)
  try {
    return obj(JSON.parse(raw))
  } catch (e) {
    throw new PageDataError(`${where} is not JSON: ${e instanceof Error ? e.message : String(e)}`)
  }
}

// A repository's address as links may use it: https, plain path characters.
export function safeRepoUrl(v: unknown): string {
  const s = typeof v === 'string' ? v.replace(/\/+$/, '') : ''
  return /^https:\/\/[A-Za-z0-9.-]{1,100}(:\d{1,5})?(\/[A-Za-z0-9._~-]{1,100}){0,4}$/.test(s)
    ? s
    : ''
}

export function readIndex(raw: string, where = 'data/index.json'): PageIndex {
  const j = parseJson(raw, where)
  checkSchema(j, where)
  const keys: KeySummary[] = []
  for (const k of arr(j.keys, MAX_KEYS).map(obj)) {
    const dir = text(k.dir, 60)
    if (!DIR.test(dir)) continue
    keys.push({
      key: text(k.key, 100),
      dir,
      runs: Math.max(0, Math.min(MAX_RUNS, Math.floor(num(k.runs) ?? 0))),
      first: text(k.first, 40),
      last: text(k.last, 40)
    })
  }
  return {
    schema: PAGE_SCHEMA,
    repoUrl: safeRepoUrl(j.repoUrl),
    keys
  }
}

// key.json and rows.json: the rows apart, as they change only when a row
// comes or goes, and key.json is written on every push.
export function encodeKey(data: KeyData): { key: string; rows: string } {
  const { rows, ...key } = data
  return {
    key: `${JSON.stringify(key)}\n`,
    rows: `${JSON.stringify({ schema: PAGE_SCHEMA, rows })}\n`
  }
}

export function readKeyData(raw: string, rowsRaw: string, where: string): KeyData {
  const j = parseJson(raw, where)
  checkSchema(j, where)
  const rj = parseJson(rowsRaw, `${where} (rows.json)`)
  checkSchema(rj, `${where} (rows.json)`)
  const dir = text(j.dir, 60)
  if (!DIR.test(dir)) throw new PageDataError(`${where}: dir is not a directory name`)
  const rows: Row[] = []
  const seen = new Set<string>()
  for (const r of arr(rj.rows, MAX_ROWS).map(obj)) {
    const metric = text(r.metric)
    if (!METRIC.test(metric) || seen.has(metric)) continue
    seen.add(metric)
    rows.push({
      metric,
      kind: text(r.kind, 20),
      unit: text(r.unit, 20),
      label: text(r.label, 120) || metric,
      test: text(r.test, 60),
      family: text(r.family, 100),
      floor: Math.max(0, num(r.floor) ?? 0)
    })
  }
  const chunks: KeyData['chunks'] = []
  for (const c of arr(j.chunks, Math.ceil(MAX_RUNS / CHUNK_RUNS)).map(obj)) {
    const file = text(c.file, 20)
    const runs = num(c.runs)
    if (!CHUNK_FILE.test(file) || runs === null || runs < 0 || runs > CHUNK_RUNS)
      throw new PageDataError(`${where}: a chunk is not cNNNN.json of at most ${CHUNK_RUNS} runs`)
    chunks.push({ file, runs: Math.floor(runs) })
  }
  const runs = chunks.reduce((n, c) => n + c.runs, 0)
  const steps: PageStep[] = []
  for (const s of arr(j.steps, MAX_PAGE_STEPS).map(obj)) {
    const at = num(s.at)
    const before = num(s.before)
    const after = num(s.after)
    const metric = text(s.metric)
    if (at === null || before === null || after === null || !seen.has(metric)) continue
    if (!Number.isInteger(at) || at < 0 || at >= runs) continue
    const a = num(s.attribution)
    steps.push({
      metric,
      at,
      before,
      after,
      attribution: a !== null && Number.isInteger(a) && a >= 0 && a < MAX_RECORD_STEPS ? a : -1
    })
  }
  return {
    schema: PAGE_SCHEMA,
    key: text(j.key, 100),
    dir,
    runs,
    rows,
    chunks,
    steps,
    archives: arr(j.archives, 1000)
      .map((a) => text(a, 200))
      .filter((a) => a !== '')
  }
}

function attributionOf(v: unknown): Attribution | null {
  const s = obj(v)
  const metric = text(s.metric)
  const before = num(s.before)
  const after = num(s.after)
  if (!METRIC.test(metric) || before === null || after === null) return null
  return {
    metric,
    before,
    after,
    commands: arr(s.commands, MAX_STEP_COMMANDS)
      .map(obj)
      .map((c) => ({
        command: text(c.command, 60),
        calls: arr(c.calls, MAX_STEP_CALLS)
          .map(obj)
          .filter((k) => num(k.before) !== null && num(k.after) !== null)
          .map((k) => ({
            call: text(k.call, 40),
            before: k.before as number,
            after: k.after as number
          }))
      }))
      .filter((c) => c.command !== ''),
    site: text(s.site, 200)
  }
}

// A record's steps with their attribution, checked (a record's "steps", or a
// chunk's copy of them).
export function attributionsOf(v: unknown): Attribution[] {
  return arr(v, MAX_RECORD_STEPS)
    .map(attributionOf)
    .filter((a): a is Attribution => a !== null)
}

// ---- a series, packed ---------------------------------------------------
// Counts repeat exactly run after run, so a series is packed as runs of one
// value, [value, times, value, times, ...], when that is shorter than the
// plain list; null is a run without the figure.

export function packSeries(xs: (number | null)[]): (number | null)[] | { r: (number | null)[] } {
  const r: (number | null)[] = []
  for (let i = 0; i < xs.length;) {
    let j = i + 1
    while (j < xs.length && xs[j] === xs[i]) j++
    r.push(xs[i], j - i)
    i = j
  }
  return r.length < xs.length ? { r } : xs
}

export function unpackSeries(v: unknown, n: number): (number | null)[] {
  const out: (number | null)[] = []
  if (Array.isArray(v)) {
    for (const x of v.slice(0, n)) out.push(num(x))
  } else {
    const r = arr(obj(v).r, 2 * n)
    for (let i = 0; i + 1 < r.length && out.length < n; i += 2) {
      const times = num(r[i + 1])
      if (times === null || times < 1) break
      const x = num(r[i])
      for (let k = 0; k < times && out.length < n; k++) out.push(x)
    }
  }
  while (out.length < n) out.push(null)
  return out
}

// ---- a chunk ---------------------------------------------------------------

export function encodeChunk(runs: PageRun[], values: Map<string, (number | null)[]>): string {
  const provs: Provenance[] = []
  const provIndex = new Map<string, number>()
  const compact = runs.map((r) => {
    const pk = JSON.stringify(r.provenance)
    let p = provIndex.get(pk)
    if (p === undefined) {
      p = provs.length
      provs.push(r.provenance)
      provIndex.set(pk, p)
    }
    return {
      id: r.id,
      c: r.commit,
      d: r.date,
      ...(r.runId !== null ? { n: r.runId } : {}),
      ...(r.release !== '' ? { t: r.release } : {}),
      ...(r.subject !== '' ? { s: r.subject } : {}),
      ...(r.source !== 'measured' ? { o: r.source } : {}),
      ...(r.reusedFrom !== '' ? { f: r.reusedFrom } : {}),
      ...(r.skipReason !== '' ? { k: r.skipReason } : {}),
      ...(r.archived ? { a: 1 } : {}),
      p,
      ...(r.steps.length > 0 ? { x: r.steps } : {})
    }
  })
  const v: Record<string, unknown> = {}
  for (const [metric, xs] of values) if (xs.some((x) => x !== null)) v[metric] = packSeries(xs)
  return `${JSON.stringify({ schema: PAGE_SCHEMA, prov: provs, runs: compact, v })}\n`
}

function provenanceOf(v: unknown): Provenance {
  const p = obj(v)
  return {
    netatalk: text(p.netatalk, 60),
    build: text(p.build, 80),
    afpConf: text(p.afpConf, 64),
    runner: text(p.runner, 140),
    suite: text(p.suite, 100)
  }
}

export function decodeChunk(raw: string, where: string, expect: number): Chunk {
  const j = parseJson(raw, where)
  checkSchema(j, where)
  const provs = arr(j.prov, CHUNK_RUNS).map(provenanceOf)
  const runs: PageRun[] = []
  for (const r of arr(j.runs, CHUNK_RUNS).map(obj)) {
    const commit = text(r.c, 40)
    const date = text(r.d, 40)
    const id = text(r.id, 120)
    if (!HEX40.test(commit) || Number.isNaN(Date.parse(date)) || id === '')
      throw new PageDataError(`${where}: run ${runs.length} has no commit, date or id`)
    const source = SOURCES.find((s) => s === r.o) ?? 'measured'
    const from = text(r.f, 40)
    const runId = num(r.n)
    runs.push({
      id,
      commit,
      date,
      runId: runId !== null && Number.isSafeInteger(runId) ? runId : null,
      release: text(r.t, 100),
      subject: text(r.s, 200),
      source,
      reusedFrom: HEX40.test(from) ? from : '',
      skipReason: text(r.k, 300),
      archived: r.a === 1,
      provenance: provs[num(r.p) ?? -1] ?? provenanceOf({}),
      steps: attributionsOf(r.x)
    })
  }
  if (runs.length !== expect)
    throw new PageDataError(`${where}: ${runs.length} runs, key.json says ${expect}`)
  const values = new Map<string, (number | null)[]>()
  for (const [metric, series] of Object.entries(obj(j.v)).slice(0, MAX_ROWS))
    if (METRIC.test(metric)) values.set(metric, unpackSeries(series, runs.length))
  return { runs, values }
}

export function chunkFile(i: number): string {
  return `c${String(i).padStart(4, '0')}.json`
}
