// What the page derives once from a key's data: the steps of each row, the
// AFP commands their attribution names, the releases and skipped commits, and
// which rows a filter keeps. The filters and the row shown live in the URL's
// hash, so every view is a link (#row=METRIC shows one row).

import type { PageIndex, PageStep, Row } from '../page-data.js'
import type { Loaded } from './load.js'
import type { Marks } from './charts.js'

export interface State {
  key: string // a key's dir; '' = the first
  row: string // a metric: the one-row view; '' = the grid
  test: string // '' = every test
  fam: string // a row across tests ("afpd_sys_stat"); '' = every row
  cmd: string // an AFP command named by a step's attribution; '' = any
  kinds: 'counts' | 'all' // counts: io, sys, instr; all: timings too (trend only)
  steps: boolean // only rows with a step
}

const COUNT_KINDS = ['io', 'sys', 'instr']

export function isCount(row: Row): boolean {
  return COUNT_KINDS.includes(row.kind)
}

export function readState(hash: string): State {
  const p = new URLSearchParams(hash.replace(/^#/, ''))
  const get = (k: string): string => (p.get(k) ?? '').slice(0, 200)
  return {
    key: get('key'),
    row: get('row'),
    test: get('test'),
    fam: get('fam'),
    cmd: get('cmd'),
    kinds: get('kinds') === 'all' ? 'all' : 'counts',
    steps: get('steps') === '1'
  }
}

export function stateHash(s: State): string {
  const p = new URLSearchParams()
  if (s.key !== '') p.set('key', s.key)
  if (s.row !== '') p.set('row', s.row)
  if (s.test !== '') p.set('test', s.test)
  if (s.fam !== '') p.set('fam', s.fam)
  if (s.cmd !== '') p.set('cmd', s.cmd)
  if (s.kinds !== 'counts') p.set('kinds', s.kinds)
  if (s.steps) p.set('steps', '1')
  return `#${p.toString()}`
}

export interface Model extends Loaded {
  index: PageIndex
  rowsByMetric: Map<string, Row>
  stepsByRow: Map<string, PageStep[]>
  commandsByRow: Map<string, Set<string>>
  commands: string[] // every AFP command a step's attribution names, sorted
  tests: string[] // in row order
  families: { family: string; label: string }[]
  releases: { at: number; tag: string }[]
  skipped: number[]
}

// The AFP commands a step's attribution names.
export function stepCommands(m: Loaded, s: PageStep): string[] {
  const a = m.runs[s.at]?.steps[s.attribution]
  return a === undefined ? [] : a.commands.map((c) => c.command)
}

function familyLabel(row: Row): string {
  const name = row.test === 'aggregate' ? row.label : row.label.replace(/^.*? · /, '')
  return name.replace(/\/op$/, '')
}

export function buildModel(loaded: Loaded, index: PageIndex): Model {
  const stepsByRow = new Map<string, PageStep[]>()
  const commandsByRow = new Map<string, Set<string>>()
  const commands = new Set<string>()
  for (const s of loaded.data.steps) {
    stepsByRow.set(s.metric, [...(stepsByRow.get(s.metric) ?? []), s])
    for (const c of stepCommands(loaded, s)) {
      commands.add(c)
      const set = commandsByRow.get(s.metric) ?? new Set<string>()
      set.add(c)
      commandsByRow.set(s.metric, set)
    }
  }
  const tests: string[] = []
  const families = new Map<string, string>()
  for (const row of loaded.data.rows) {
    if (!tests.includes(row.test)) tests.push(row.test)
    // an aggregate names its family best ("afpd stat calls")
    if (!families.has(row.family) || row.test === 'aggregate')
      families.set(row.family, familyLabel(row))
  }
  const releases: Model['releases'] = []
  const skipped: number[] = []
  loaded.runs.forEach((r, i) => {
    if (r.release !== '') releases.push({ at: i, tag: r.release })
    if (r.source === 'skipped') skipped.push(i)
  })
  return {
    ...loaded,
    index,
    rowsByMetric: new Map(loaded.data.rows.map((r) => [r.metric, r])),
    stepsByRow,
    commandsByRow,
    commands: [...commands].sort(),
    tests,
    families: [...families]
      .map(([family, label]) => ({ family, label }))
      .sort((a, b) => (a.label < b.label ? -1 : a.label > b.label ? 1 : 0)),
    releases,
    skipped
  }
}

export function marksOf(m: Model, metric: string): Marks {
  return {
    steps: (m.stepsByRow.get(metric) ?? []).map((s) => s.at),
    releases: m.releases,
    skipped: m.skipped
  }
}

// The rows the filters keep, in the page's order.
export function filterRows(m: Model, s: State): Row[] {
  return m.data.rows.filter(
    (row) =>
      (s.kinds === 'all' || isCount(row)) &&
      (s.test === '' || row.test === s.test) &&
      (s.fam === '' || row.family === s.fam) &&
      (s.cmd === '' || (m.commandsByRow.get(row.metric)?.has(s.cmd) ?? false)) &&
      (!s.steps || m.stepsByRow.has(row.metric))
  )
}

// The steps of the rows kept, newest first.
export function filterSteps(m: Model, rows: Row[], s: State): PageStep[] {
  const kept = new Set(rows.map((r) => r.metric))
  return m.data.steps
    .filter((st) => kept.has(st.metric) && (s.cmd === '' || stepCommands(m, st).includes(s.cmd)))
    .sort((a, b) => b.at - a.at)
}

// The x axis's labels: a run's date at each whole-run tick, once per day (a
// backfill records a hundred commits of one afternoon, and a row of the same
// date says nothing); a tick between runs has none.
export function axisDates(splits: number[], dateOf: (i: number) => string): string[] {
  let last = ''
  return splits.map((i) => {
    if (!Number.isInteger(i)) return ''
    const date = dateOf(i)
    if (date === last) return ''
    last = date
    return date
  })
}
