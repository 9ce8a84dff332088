// The one maker of history records (scripts/jq/record.jq, run by makeRecord
// here and by scripts/backfill) and the reader of what it makes (parseRecord):
// the figures kept, the optional fields of a backfill, and their bounds.

import { spawnSync } from 'node:child_process'
import { mkdtempSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import {
  makeRecord,
  MAX_STEPS,
  parseRecord,
  RecordError,
  recordJq,
  type HistoryRecord
} from './history-record.js'

const dir = mkdtempSync(path.join(os.tmpdir(), 'afpbench-record-'))

// verdict.json as scripts/compare writes it (the fields the record reads)
const verdict = {
  status: 'pass',
  rows: [
    {
      metric: 'aggregate.afpd_sys_stat_per_op',
      group: 'aggregate',
      kind: 'sys',
      unit: 'syscalls/op',
      current: 3.5,
      floor: 0.0000125
    },
    {
      metric: 'aggregate.time_per_op',
      group: 'aggregate',
      kind: 'time',
      unit: 'ms/op',
      current: 0.25,
      floor: null
    },
    { metric: 'lantest.1.afpd_r', group: 'lantest', kind: 'io', unit: 'calls', current: 8003 },
    { metric: 'lantest.1.time', group: 'lantest', kind: 'time', unit: 'ms', current: 412 },
    { metric: 'lantest.2.afpd_w', group: 'lantest', kind: 'io', unit: 'calls', current: null },
    { metric: 'lantest.3 afpd_w', group: 'lantest', kind: 'io', unit: 'calls', current: 1 }
  ],
  current: {
    provenance: {
      suite_version: 'lantest-12/1',
      netatalk: { version: '4.4.0', build: 'tree:1234abcd' },
      afp_conf_sha256: 'e5'.repeat(32),
      afp_conf_settings: 'ea = ad',
      runner: { cpu_model: 'Xeon', cores: 2, container: true }
    }
  }
}
const file = path.join(dir, 'verdict.json')
writeFileSync(file, JSON.stringify(verdict))

// record.jq's own output, before parseRecord reads it: the maker bounds
// what it writes (scripts/backfill writes it to files as it is)
function rawRecord(extra: unknown): HistoryRecord {
  const r = spawnSync(
    'jq',
    [
      '-c',
      '-f',
      recordJq(),
      '--arg',
      'commit',
      'a'.repeat(40),
      '--arg',
      'date',
      'd',
      '--argjson',
      'run_id',
      'null',
      '--arg',
      'key',
      '',
      '--arg',
      'release',
      '',
      '--argjson',
      'extra',
      JSON.stringify(extra),
      file
    ],
    { encoding: 'utf8' }
  )
  expect(r.status, r.stderr).toBe(0)
  return JSON.parse(r.stdout) as HistoryRecord
}

const from = {
  commit: 'a'.repeat(40),
  date: '2026-11-24T10:00:00.000Z',
  runId: 7,
  key: '',
  release: ''
}

describe('a record made by record.jq', () => {
  it('keeps the aggregates and the per-test counts, not per-test timings', () => {
    const r = makeRecord(file, from)
    expect(Object.keys(r.aggregates)).toEqual([
      'aggregate.afpd_sys_stat_per_op',
      'aggregate.time_per_op'
    ])
    // rows without a figure, or with a name that is not one, are left out
    expect(r.tests).toEqual({ 'lantest.1.afpd_r': 8003 })
    // the verdict's floor for a count row goes with it (the steps use it)
    expect(r.aggregates['aggregate.afpd_sys_stat_per_op'].floor).toBe(0.0000125)
    expect(r.aggregates['aggregate.time_per_op'].floor).toBeUndefined()
    expect(r.provenance).toEqual({
      netatalk: '4.4.0',
      build: 'tree:1234abcd',
      afpConf: 'e5'.repeat(32),
      afpConfSettings: 'ea = ad',
      runner: 'Xeon, 2 cores, container',
      suite: 'lantest-12/1'
    })
    expect(r).toMatchObject({ commit: from.commit, date: from.date, runId: 7 })
    // a measured run says nothing of its source (absent = measured)
    expect(r.source).toBeUndefined()
    expect(Object.keys(r)).toEqual([
      'schema',
      'commit',
      'date',
      'runId',
      'key',
      'release',
      'provenance',
      'aggregates',
      'tests'
    ])
  })

  it('reads back what it wrote, and refuses what is not a record', () => {
    const r = makeRecord(file, from)
    expect(parseRecord(JSON.stringify(r), 'f')).toEqual(r)
    expect(() => parseRecord('[', 'f')).toThrow(RecordError)
    expect(() => parseRecord(JSON.stringify({ ...r, commit: 'HEAD' }), 'f')).toThrow(
      /commit is not 40 hex digits/
    )
    expect(() => parseRecord('x'.repeat(300_000), 'f')).toThrow(/larger than/)
    const odd = parseRecord(
      JSON.stringify({ ...r, aggregates: { 'a b': { v: 1 }, ok: { v: 'NaN' }, fine: { v: 2 } } }),
      'f'
    )
    expect(Object.keys(odd.aggregates)).toEqual(['fine'])
  })

  const step = {
    metric: 'aggregate.afpd_sys_stat_per_op',
    before: 3.5,
    after: 3.75,
    commands: [
      { command: 'FPGetFileDirParms', calls: [{ call: 'newfstatat', before: 3, after: 4 }] }
    ],
    site: 'afp_getfildirparams (etc/afpd/filedir.c:120)'
  }

  it("a backfill's fields: subject, source, the commit reused, why skipped, the steps", () => {
    const reused = makeRecord(file, from, {
      subject: 'build(deps): bump actions/checkout',
      source: 'reused',
      reused_from: 'b'.repeat(40)
    })
    expect(reused).toMatchObject({
      subject: 'build(deps): bump actions/checkout',
      source: 'reused',
      reused_from: 'b'.repeat(40)
    })
    expect(reused.tests).toEqual({ 'lantest.1.afpd_r': 8003 })
    const skipped = makeRecord(null, from, {
      source: 'skipped',
      skip_reason: 'does not build: error: x'
    })
    expect(skipped).toMatchObject({ source: 'skipped', skip_reason: 'does not build: error: x' })
    expect(skipped.tests).toEqual({})
    expect(skipped.aggregates).toEqual({})
    const stepped = makeRecord(file, from, { steps: [step] })
    expect(stepped.steps).toEqual([step])
    expect(parseRecord(JSON.stringify(stepped), 'f')).toEqual(stepped)
  })

  it('bounds them, in the maker and in the reader alike', () => {
    const hostile = {
      subject: `x${'y'.repeat(500)}\u0007\n::set-output`,
      source: 'invented',
      reused_from: 'HEAD',
      skip_reason: 'z'.repeat(1000),
      steps: [
        ...Array.from({ length: 30 }, () => step),
        { ...step, metric: 'a b' },
        { ...step, before: 'NaN' }
      ]
    }
    const made = rawRecord(hostile)
    const read = parseRecord(JSON.stringify({ ...makeRecord(file, from), ...hostile }), 'f')
    for (const r of [made, read]) {
      expect(r.subject).toHaveLength(200)
      expect(r.source).toBeUndefined()
      expect(r.reused_from).toBeUndefined()
      expect(r.skip_reason).toHaveLength(300)
      expect(r.steps).toHaveLength(MAX_STEPS)
    }
    const calls = Array.from({ length: 40 }, (_, i) => ({ call: `c${i}`, before: 0, after: i }))
    const wide = {
      ...step,
      commands: Array.from({ length: 40 }, () => ({ command: 'FPRead', calls }))
    }
    for (const r of [
      rawRecord({ steps: [wide] }),
      parseRecord(JSON.stringify({ ...makeRecord(file, from), steps: [wide] }), 'f')
    ]) {
      expect(r.steps?.[0].commands).toHaveLength(10)
      expect(r.steps?.[0].commands[0].calls).toHaveLength(10)
    }
    // a subject with control characters reaches no log line whole
    const bell = makeRecord(file, from, { subject: 'fix\u0007\n::set-output name=x::y' })
    expect(bell.subject).toBe('fix??::set-output name=x::y')
  })
})
