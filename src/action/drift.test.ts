import { spawnSync } from 'node:child_process'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { findSteps, noise } from './drift.js'
import type { HistoryRecord } from './history-record.js'
import { buildTrend, driftLines, driftOf, metricLabel } from './trend.js'

// A deterministic jitter (no Math.random: a test must give one answer).
function jitter(i: number, amplitude: number): number {
  return amplitude * Math.sin(i * 12.9898) * 0.999
}

describe('findSteps', () => {
  it('finds no step in a constant count series', () => {
    expect(findSteps(Array<number>(30).fill(9.135))).toEqual([])
  })

  it('names the first run of each level in an exact count series', () => {
    // three steps of +2 %, each under a 5 % gate: +6.1 % in all
    const xs = Array.from(
      { length: 30 },
      (_, i) => 9 * 1.02 ** [8, 15, 23].filter((k) => i >= k).length
    )
    const steps = findSteps(xs)
    expect(steps.map((s) => s.index)).toEqual([8, 15, 23])
    for (const s of steps) expect(s.after / s.before).toBeCloseTo(1.02, 6)
  })

  it('finds a +2 % step in instructions with ±0.3 % noise, and nothing in the noise alone', () => {
    const quiet = Array.from({ length: 30 }, (_, i) => 52000 * (1 + jitter(i, 0.003)))
    expect(findSteps(quiet)).toEqual([])
    const stepped = quiet.map((x, i) => (i >= 17 ? x * 1.02 : x))
    expect(findSteps(stepped).map((s) => s.index)).toEqual([17])
  })

  it('ignores a step smaller than 0.5 %', () => {
    const xs = Array.from({ length: 20 }, (_, i) => (i >= 10 ? 100.3 : 100))
    expect(findSteps(xs)).toEqual([])
    expect(findSteps(xs, 0.001).map((s) => s.index)).toEqual([10])
  })

  it("ignores a step within the verdict's floor for the row, however large in percent", () => {
    // cnid_dbd reads/op, 100 to 104 reads over 80,000 AFP ops: the verdict's floor is 5
    const xs = Array.from({ length: 20 }, (_, i) => (i >= 10 ? 0.0013 : 0.00125))
    expect(findSteps(xs).map((s) => s.index)).toEqual([10])
    expect(findSteps(xs, undefined, 5 / 80000)).toEqual([])
    expect(findSteps(xs, undefined, 1 / 80000).map((s) => s.index)).toEqual([10])
  })

  it('a single odd run is not a step; a new level at the last run is', () => {
    const odd = Array.from({ length: 20 }, (_, i) => (i === 9 ? 130 : 100))
    expect(findSteps(odd).map((s) => s.index)).not.toContain(10)
    const last = Array.from({ length: 20 }, (_, i) => (i === 19 ? 104 : 100))
    expect(findSteps(last).map((s) => s.index)).toEqual([19])
  })

  it('estimates the noise from run-to-run differences, unmoved by a step', () => {
    const xs = Array.from({ length: 30 }, (_, i) => 100 + jitter(i, 1) + (i >= 15 ? 50 : 0))
    expect(noise(xs)).toBeLessThan(1)
    expect(noise(xs)).toBeGreaterThan(0.2)
  })
})

function record(i: number, over: Partial<HistoryRecord['aggregates']> = {}): HistoryRecord {
  const commit = i.toString(16).padStart(40, '0')
  return {
    schema: 'afpbench-history/1',
    commit,
    date: new Date(Date.UTC(2026, 9, 1 + i)).toISOString(),
    runId: 100 + i,
    key: '',
    release: i === 3 ? 'v4.4.0' : '',
    provenance: { netatalk: '4.4.0', build: '', afpConf: '', runner: 'x', suite: 'lantest-12/1' },
    aggregates: {
      'aggregate.afpd_sys_stat_per_op': {
        v: i >= 12 ? 3.5 * 1.03 : 3.5,
        kind: 'sys',
        unit: 'syscalls/op'
      },
      'aggregate.afpd_r_per_op': { v: 0.0124, kind: 'io', unit: 'syscalls/op' },
      'aggregate.time_per_op': { v: 0.25 * (1 + jitter(i, 0.3)), kind: 'time', unit: 'ms/op' },
      ...over
    },
    tests: {}
  }
}

describe('driftOf and the trend', () => {
  const records = Array.from({ length: 20 }, (_, i) => record(i))

  it('searches the counts only: a timing moves with the runner', () => {
    const steps = driftOf(records)
    expect(steps).toHaveLength(1)
    expect(steps[0]).toMatchObject({
      metric: 'aggregate.afpd_sys_stat_per_op',
      commit: records[12].commit,
      date: records[12].date
    })
    expect(steps[0].change).toBeCloseTo(0.03, 6)
  })

  it("uses the floor the runs' verdicts recorded for the row", () => {
    // +4 % of cnid_dbd reads/op: 100 to 104 reads over 80,000 AFP ops, within the floor of 5
    const small = (i: number): HistoryRecord =>
      record(i, {
        'aggregate.cnid_r_per_op': {
          v: i >= 12 ? 0.0013 : 0.00125,
          kind: 'io',
          unit: 'syscalls/op',
          floor: 5 / 80000
        }
      })
    const runs = Array.from({ length: 20 }, (_, i) => small(i))
    expect(driftOf(runs).map((s) => s.metric)).toEqual(['aggregate.afpd_sys_stat_per_op'])
    // without a recorded floor (records of before) it is a step, as before
    for (const r of runs) delete r.aggregates['aggregate.cnid_r_per_op'].floor
    expect(
      driftOf(runs)
        .map((s) => s.metric)
        .sort()
    ).toEqual(['aggregate.afpd_sys_stat_per_op', 'aggregate.cnid_r_per_op'])
  })

  it('an exact count steps between two runs; a noisier count needs four', () => {
    // main before and after its step: the step at the second run
    expect(driftOf(records.slice(11, 13)).map((s) => [s.metric, s.commit])).toEqual([
      ['aggregate.afpd_sys_stat_per_op', records[12].commit]
    ])
    expect(driftOf(records.slice(10, 13)).map((s) => s.commit)).toEqual([records[12].commit])
    // no move, no step
    expect(driftOf(records.slice(0, 2))).toEqual([])
    // instructions (within about 1 % from run to run) wait for four runs
    const instr = (i: number): HistoryRecord =>
      record(i, {
        'aggregate.afpd_instr_per_op': { v: i >= 12 ? 1030 : 1000, kind: 'instr', unit: 'instr/op' }
      })
    const two = [instr(11), instr(12)]
    expect(driftOf(two).map((s) => s.metric)).toEqual(['aggregate.afpd_sys_stat_per_op'])
  })

  it('names each commit that took a step once, with what moved, linked', () => {
    const both = Array.from({ length: 20 }, (_, i) =>
      record(i, {
        'aggregate.afpd_r_per_op': { v: i >= 12 ? 1.5 : 0, kind: 'io', unit: 'syscalls/op' }
      })
    )
    const lines = driftLines(driftOf(both), 'https://github.com/o/r')
    const at = records[12].commit
    expect(lines).toEqual([
      `**[${at.slice(0, 7)}](https://github.com/o/r/commit/${at})** (2026-10-13): afpd reads/op 0 → 1.5, afpd stat calls/op +3.0 %`
    ])
  })

  it('builds trend.json: points oldest first, the release, the series to draw', () => {
    const t = buildTrend(
      { missing: false, records, release: records[3], runs: 20, problems: [] },
      { branch: 'main', dataBranch: 'afpbench-data', key: '', serverRepo: '' }
    )
    expect(t.points).toHaveLength(20)
    expect(t.points[0].commit).toBe(records[0].commit)
    expect(t.release?.release).toBe('v4.4.0')
    expect(t.chart).toEqual(['aggregate.afpd_r_per_op', 'aggregate.time_per_op'])
    expect(t.compare).toEqual(['aggregate.afpd_r_per_op'])
    expect(t.labels['aggregate.afpd_sys_stat_per_op']).toBe('afpd stat calls/op')
    expect(t.driftLines).toHaveLength(1)
  })

  it('labels metrics as a reader says them', () => {
    expect(metricLabel('aggregate.afpd_sys_total_per_op')).toBe('afpd system calls/op')
    expect(metricLabel('aggregate.cnid_sys_fsync_per_op')).toBe('cnid_dbd fsync calls/op')
    expect(metricLabel('aggregate.afpd_instr_per_op')).toBe('afpd instructions/op')
    expect(metricLabel('aggregate.afpd_pipe_r_per_op')).toBe('afpd pipe reads/op')
    expect(metricLabel('aggregate.cnid_net_w_per_op')).toBe('cnid_dbd network writes/op')
    expect(metricLabel('aggregate.afpd_unix_w_per_op')).toBe('afpd local socket writes/op')
  })

  it('names every aggregate as the verdict (names.jq) does', () => {
    const ids = ['afpd_r', 'cnid_w', 'afpd_cpu', 'afpd_sys_total', 'cnid_sys_lock', 'afpd_file_r']
      .concat(
        ['afpd', 'cnid'].flatMap((p) =>
          ['file', 'net', 'unix', 'pipe', 'other'].flatMap((k) => [`${p}_${k}_r`, `${p}_${k}_w`])
        )
      )
      .map((q) => `aggregate.${q}_per_op`)
    const r = spawnSync(
      'jq',
      [
        '-n',
        '-r',
        '-L',
        path.join(import.meta.dirname, '..', '..', 'scripts', 'jq'),
        '--args',
        'include "names"; $ARGS.positional[] | {metric: ., group: "aggregate"} | row_label',
        ...ids
      ],
      { encoding: 'utf8' }
    )
    expect(r.status, r.stderr).toBe(0)
    expect(ids.map(metricLabel)).toEqual(r.stdout.trim().split('\n'))
  })
})
