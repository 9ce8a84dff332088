// The page's filters and links, in Node: the model has no DOM.
import { describe, expect, it } from 'vitest'
import type { KeyData, PageIndex, PageRun, Row } from '../page-data.js'
import {
  axisDates,
  buildModel,
  filterRows,
  filterSteps,
  readState,
  stateHash,
  type State
} from './model.js'

function row(metric: string, test: string, family: string, kind = 'sys'): Row {
  return { metric, kind, unit: 'syscalls', label: metric, test, family, floor: 1 }
}

const rows = [
  row('aggregate.afpd_sys_stat_per_op', 'aggregate', 'afpd_sys_stat'),
  row('aggregate.time_per_op', 'aggregate', 'time', 'time'),
  row('lantest.9.afpd_sys_stat', 'lantest 9', 'afpd_sys_stat'),
  row('lantest.9.afpd_sys_open', 'lantest 9', 'afpd_sys_open'),
  row('lantest.1.afpd_sys_stat', 'lantest 1', 'afpd_sys_stat')
]

function runAt(i: number, over: Partial<PageRun> = {}): PageRun {
  return {
    id: String(i),
    commit: 'a'.repeat(40),
    date: '2026-01-01T00:00:00.000Z',
    runId: null,
    release: '',
    subject: '',
    source: 'measured',
    reusedFrom: '',
    skipReason: '',
    archived: false,
    provenance: { netatalk: '', build: '', afpConf: '', runner: '', suite: '' },
    steps: [],
    ...over
  }
}

const attribution = {
  metric: 'aggregate.afpd_sys_stat_per_op',
  before: 1,
  after: 2,
  commands: [{ command: 'FPGetFileDirParms', calls: [] }],
  site: ''
}
const runs = [
  runAt(0, { release: 'v1' }),
  runAt(1, { source: 'skipped' }),
  runAt(2, { steps: [attribution] }),
  runAt(3)
]
const data: KeyData = {
  schema: 'afpbench-page/1',
  key: '',
  dir: 'default',
  runs: 4,
  rows,
  chunks: [{ file: 'c0000.json', runs: 4 }],
  steps: [
    { metric: 'aggregate.afpd_sys_stat_per_op', at: 2, before: 1, after: 2, attribution: 0 },
    { metric: 'lantest.9.afpd_sys_stat', at: 2, before: 1, after: 2, attribution: 0 },
    { metric: 'lantest.9.afpd_sys_open', at: 3, before: 1, after: 2, attribution: -1 }
  ],
  archives: []
}
const index: PageIndex = { schema: 'afpbench-page/1', repoUrl: '', keys: [] }
const m = buildModel({ data, runs, values: new Map() }, index)
const all: State = readState('')

describe('the state in the hash', () => {
  it('makes a link of every view, and reads it back', () => {
    const s: State = {
      key: 'sqlite',
      row: 'lantest.9.afpd_sys_stat',
      test: 'lantest 9',
      fam: 'afpd_sys_stat',
      cmd: 'FPOpenFork',
      kinds: 'all',
      steps: true
    }
    expect(readState(stateHash(s))).toEqual(s)
    expect(stateHash({ ...all, row: 'lantest.9.afpd_sys_stat' })).toBe(
      '#row=lantest.9.afpd_sys_stat'
    )
    expect(readState('#kinds=nonsense&steps=yes')).toMatchObject({ kinds: 'counts', steps: false })
  })
})

describe('the filters', () => {
  const kept = (patch: Partial<State>): string[] =>
    filterRows(m, { ...all, ...patch }).map((r) => r.metric)

  it('show the counts, not the timings, unless asked', () => {
    expect(kept({})).not.toContain('aggregate.time_per_op')
    expect(kept({ kinds: 'all' })).toContain('aggregate.time_per_op')
  })

  it('keep a test, a row across tests, or the rows whose steps name an AFP command', () => {
    expect(kept({ test: 'lantest 9' })).toEqual([
      'lantest.9.afpd_sys_stat',
      'lantest.9.afpd_sys_open'
    ])
    expect(kept({ fam: 'afpd_sys_stat' })).toEqual([
      'aggregate.afpd_sys_stat_per_op',
      'lantest.9.afpd_sys_stat',
      'lantest.1.afpd_sys_stat'
    ])
    expect(kept({ cmd: 'FPGetFileDirParms' })).toEqual([
      'aggregate.afpd_sys_stat_per_op',
      'lantest.9.afpd_sys_stat'
    ])
    expect(kept({ steps: true })).toEqual([
      'aggregate.afpd_sys_stat_per_op',
      'lantest.9.afpd_sys_stat',
      'lantest.9.afpd_sys_open'
    ])
  })

  it('list the steps of the rows kept, newest first', () => {
    const st = filterSteps(m, filterRows(m, { ...all, test: 'lantest 9' }), {
      ...all,
      test: 'lantest 9'
    })
    expect(st.map((s) => [s.metric, s.at])).toEqual([
      ['lantest.9.afpd_sys_open', 3],
      ['lantest.9.afpd_sys_stat', 2]
    ])
  })

  it('offer what the data has: the commands, the tests, the releases, the skipped commits', () => {
    expect(m.commands).toEqual(['FPGetFileDirParms'])
    expect(m.tests).toEqual(['aggregate', 'lantest 9', 'lantest 1'])
    expect(m.releases).toEqual([{ at: 0, tag: 'v1' }])
    expect(m.skipped).toEqual([1])
  })
})

describe('axisDates', () => {
  const dates = ['2026-11-27', '2026-11-28', '2026-11-28', '2026-11-28', '2026-11-29']
  const dateOf = (i: number): string => dates[i] ?? ''

  it('labels a day once, at its first tick', () => {
    expect(axisDates([0, 1, 2, 3, 4], dateOf)).toEqual([
      '2026-11-27',
      '2026-11-28',
      '',
      '',
      '2026-11-29'
    ])
  })

  it('labels no tick between two runs', () => {
    expect(axisDates([0.5, 1, 1.5, 2], dateOf)).toEqual(['', '2026-11-28', '', ''])
  })

  it('compares with the last date shown, not the blank tick before it', () => {
    expect(axisDates([1, 1.5, 2], dateOf)).toEqual(['2026-11-28', '', ''])
  })
})
