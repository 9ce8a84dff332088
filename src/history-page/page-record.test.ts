import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { parseRecord } from '../action/history-record.js'
import { runPath } from '../action/history-store.js'
import { readPageRecord, runName } from './page-record.js'

const base = {
  schema: 'afpbench-history/1',
  commit: 'c'.repeat(40),
  date: '2026-11-25T06:41:00.123Z',
  runId: 9001,
  key: '',
  release: '',
  provenance: {},
  aggregates: { 'aggregate.afpd_r_per_op': { v: 0.5, kind: 'io', unit: 'syscalls/op' } },
  tests: { 'lantest.1.afpd_r': 1000 }
}

describe("a record's name", () => {
  it("is the data branch's file name of the run (history-store's runPath)", () => {
    for (const r of [base, { ...base, runId: null }, { ...base, date: '2027-01-02T03:04:05Z' }]) {
      const rec = parseRecord(JSON.stringify(r), 'r')
      expect(runName(rec)).toBe(path.basename(runPath(rec), '.json'))
    }
  })
})

describe('the optional fields of a record', () => {
  it('are read when present', () => {
    const steps = [
      {
        metric: 'aggregate.afpd_sys_stat_per_op',
        before: 3,
        after: 4,
        commands: [
          { command: 'FPGetFileDirParms', calls: [{ call: 'lstat', before: 1, after: 2 }] }
        ],
        site: 'afpd/file.c:123 getmetadata'
      }
    ]
    const r = readPageRecord(
      JSON.stringify({
        ...base,
        subject: 'afpd: one more lstat',
        source: 'reused',
        reused_from: 'd'.repeat(40),
        steps
      }),
      'r'
    ).run
    expect(r).toMatchObject({
      subject: 'afpd: one more lstat',
      source: 'reused',
      reusedFrom: 'd'.repeat(40),
      skipReason: '',
      steps
    })
  })

  it('are each possibly absent: a record of the action has none', () => {
    const r = readPageRecord(JSON.stringify(base), 'r', { id: 'file-name' }).run
    expect(r).toMatchObject({
      id: 'file-name',
      subject: '',
      source: 'measured',
      reusedFrom: '',
      skipReason: '',
      steps: [],
      archived: false
    })
  })

  it('are left out when they fail their check, and bounded when they are long', () => {
    const many = Array.from({ length: 25 }, (_, i) => ({
      metric: `aggregate.m${i}`,
      before: 1,
      after: 2,
      commands: Array.from({ length: 12 }, () => ({
        command: 'FPRead',
        calls: Array.from({ length: 12 }, () => ({ call: 'read', before: 1, after: 2 }))
      })),
      site: 's'.repeat(500)
    }))
    const r = readPageRecord(
      JSON.stringify({
        ...base,
        subject: 'x'.repeat(1000),
        source: 'invented',
        reused_from: 'not hex',
        skip_reason: 'only for a skipped one',
        steps: [
          ...many,
          { metric: '../bad name', before: 1, after: 2 },
          { metric: 'ok', before: 'x', after: 2 }
        ]
      }),
      'r'
    ).run
    expect(r.subject).toHaveLength(200)
    expect(r.source).toBe('measured')
    expect(r.reusedFrom).toBe('')
    expect(r.skipReason).toBe('')
    expect(r.steps).toHaveLength(20)
    expect(r.steps[0].commands).toHaveLength(10)
    expect(r.steps[0].commands[0].calls).toHaveLength(10)
    expect(r.steps[0].site).toHaveLength(200)
  })

  it("keep a skipped commit's reason", () => {
    const r = readPageRecord(
      JSON.stringify({
        ...base,
        aggregates: {},
        tests: {},
        source: 'skipped',
        skip_reason: 'meson: no compiler'
      }),
      'r'
    ).run
    expect(r).toMatchObject({ source: 'skipped', skipReason: 'meson: no compiler' })
  })
})
