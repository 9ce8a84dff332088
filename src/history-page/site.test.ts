// The page's data from real records (testing/make-history.ts: two real runs
// of lantest 1-12, judged by scripts/compare, a step injected).
import { mkdtempSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { decodeChunk, readKeyData } from './page-data.js'
import { readPageRecord, type PageRecord } from './page-record.js'
import { keyFiles, orderRuns, recordsOfChunks, rowLabel, rowParts, testFloor } from './site.js'
import { makeHistory, STEP_METRIC, STEP_TEST_ROW, type Made } from './testing/make-history.js'

const work = mkdtempSync(path.join(os.tmpdir(), 'afpbench-page-site-'))
let made: Made
let records: PageRecord[]

function pageRecords(m: Made): PageRecord[] {
  return m.records.map((r) => readPageRecord(JSON.stringify(r), r.commit))
}

beforeAll(() => {
  made = makeHistory(path.join(work, 'h'), 160, work)
  records = pageRecords(made)
}, 60_000)

describe('rows', () => {
  it('are named and grouped as a reader says them', () => {
    expect(rowParts('lantest.9.afpd_sys_stat')).toEqual({
      test: 'lantest 9',
      family: 'afpd_sys_stat'
    })
    expect(rowParts('aggregate.afpd_sys_stat_per_op')).toEqual({
      test: 'aggregate',
      family: 'afpd_sys_stat'
    })
    expect(rowLabel('lantest.9.afpd_sys_stat')).toBe('lantest 9 · afpd stat calls')
    expect(rowLabel('aggregate.cnid_sys_total_per_op')).toBe('cnid_dbd system calls/op')
    expect(rowLabel('lantest.4.afpd_instr_per_op')).toBe('lantest 4 · afpd instructions/op')
  })

  it("take the verdict's floors (scripts/jq/counts.jq count_floor)", () => {
    expect(testFloor('lantest.1.cnid_sys_total')).toBe(50)
    expect(testFloor('lantest.1.cnid_w')).toBe(5)
    expect(testFloor('lantest.1.cnid_file_r')).toBe(5)
    expect(testFloor('lantest.1.afpd_sys_stat')).toBe(1)
  })

  it('are every aggregate and every per-test count of the records: aggregates first, tests in order', () => {
    const { data } = keyFiles('default', '', records)
    const last = made.records[made.records.length - 1]
    const metrics = data.rows.map((r) => r.metric)
    expect(new Set(metrics)).toEqual(
      new Set([...Object.keys(last.aggregates), ...Object.keys(last.tests)])
    )
    expect(metrics.length).toBeGreaterThan(180)
    const tests = [...new Set(data.rows.map((r) => r.test))]
    expect(tests.slice(0, 4)).toEqual(['aggregate', 'lantest 1', 'lantest 2', 'lantest 3'])
    expect(tests.at(-1)).toBe('lantest 12')
    const row = data.rows.find((r) => r.metric === STEP_TEST_ROW)
    expect(row).toMatchObject({ kind: 'sys', unit: 'syscalls', family: 'afpd_sys_stat', floor: 1 })
  })
})

describe('steps', () => {
  it("are the injected one, in every row it moved, found by the history's rule", () => {
    const { data } = keyFiles('default', '', records)
    expect(data.steps.map((s) => [s.metric, s.at]).sort()).toEqual(
      [
        ['aggregate.afpd_sys_stat_per_op', made.stepAt],
        ['aggregate.afpd_sys_total_per_op', made.stepAt],
        [STEP_TEST_ROW, made.stepAt],
        ['lantest.9.afpd_sys_total', made.stepAt]
      ].sort()
    )
    const of = (m: string) => data.steps.find((s) => s.metric === m)
    expect(of(STEP_TEST_ROW)).toMatchObject({ before: 53900, after: 64900 })
    // the record attributes the per-op stat row; lantest 9's stat row takes
    // it by its family; the totals have none of their own
    expect(of(STEP_METRIC)?.attribution).toBe(0)
    expect(of(STEP_TEST_ROW)?.attribution).toBe(0)
    expect(of('aggregate.afpd_sys_total_per_op')?.attribution).toBe(-1)
  })

  it('are not found where nothing moved: the same runs without the injected step', () => {
    const flat = records.map((r, i) => (i >= made.stepAt ? records[i % 2] : r))
    // (records 0 and 1 are the two real runs; the same ids keep the order)
    const same = flat.map((r, i) => ({ ...r, run: { ...records[i].run } }))
    expect(keyFiles('default', '', same).data.steps).toEqual([])
  })
})

describe('the files', () => {
  it('are chunks of 50 runs: a full chunk, and the rows, do not change when a run is added', () => {
    const before = keyFiles('default', '', records.slice(0, 75)).files
    const after = keyFiles('default', '', records.slice(0, 76)).files
    expect([...before.keys()].sort()).toEqual(['c0000.json', 'c0001.json', 'key.json', 'rows.json'])
    expect(after.get('c0000.json')).toBe(before.get('c0000.json'))
    expect(after.get('rows.json')).toBe(before.get('rows.json'))
    expect(after.get('c0001.json')).not.toBe(before.get('c0001.json'))
    expect(after.get('key.json')).not.toBe(before.get('key.json'))
  })

  it('are the same bytes whatever order the records come in', () => {
    const shuffled = [...records].sort((a, b) => (a.run.commit < b.run.commit ? -1 : 1))
    expect(keyFiles('default', '', shuffled).files).toEqual(keyFiles('default', '', records).files)
  })

  it('give the runs back (the action keeps them as its copy of the history)', () => {
    const first = keyFiles('default', '', records, ['a_b.json'])
    const data = readKeyData(
      first.files.get('key.json') ?? '',
      first.files.get('rows.json') ?? '',
      'key.json'
    )
    const chunks = data.chunks.map((c) =>
      decodeChunk(first.files.get(c.file) ?? '', c.file, c.runs)
    )
    const again = keyFiles('default', '', recordsOfChunks(data, chunks), data.archives)
    expect(again.files).toEqual(first.files)
  })

  it('keep what a skipped and a reused commit say, and the releases', () => {
    const { data, files } = keyFiles('default', '', records)
    const runs = data.chunks.flatMap(
      (c) => decodeChunk(files.get(c.file) ?? '', c.file, c.runs).runs
    )
    const skipped = runs.filter((r) => r.source === 'skipped')
    expect(skipped).toHaveLength(1)
    expect(skipped[0].skipReason).toMatch(/does not compile/)
    expect(runs.filter((r) => r.source === 'reused').length).toBeGreaterThan(1)
    expect(runs.filter((r) => r.release !== '').map((r) => r.release)).toEqual(['v4.3.0', 'v4.4.0'])
  })
})

describe('runs', () => {
  it("are each once: a run's own file wins over an archive's copy of it", () => {
    const archived = {
      ...records[3],
      run: { ...records[3].run, archived: true },
      record: { ...records[3].record, tests: {} }
    }
    const runs = orderRuns([archived, ...records.slice(0, 10)])
    expect(runs).toHaveLength(10)
    expect(runs[3].run.archived).toBe(false)
    expect(orderRuns([records[3], archived])[0].run.archived).toBe(false)
  })
})
