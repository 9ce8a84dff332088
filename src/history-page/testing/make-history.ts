// A history to test the page with, made of real records until a real
// backfilled one is at hand: two real runs of lantest 1-12 with every system
// call family (scripts/tests/fixtures/lantest-sys-a.json and -b.json), each
// judged by scripts/compare and made into a record by the action's own record
// maker, as the data branch keeps them. The runs alternate between the two
// (so the rows that are not exact move run to run, as on a real runner), and
// one step is injected: from STEP_AT on, afpd makes one lstat more per request
// of lantest 9 (11,000 requests), with the subject and attribution a backfill
// writes. Two releases, a few reused commits and one skipped commit too.

import { spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { mkdirSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { makeRecord, type HistoryRecord } from '../../action/history-record.js'
import { runName } from '../page-record.js'

export const REPO_ROOT = path.join(import.meta.dirname, '..', '..', '..')
const FIXTURES = path.join(REPO_ROOT, 'scripts', 'tests', 'fixtures')

export const STEP_METRIC = 'aggregate.afpd_sys_stat_per_op'
export const STEP_TEST_ROW = 'lantest.9.afpd_sys_stat'
export const STEP_COMMAND = 'FPGetFileDirParms'
export const STEP_SUBJECT = 'afpd: stat the parent directory again before each reply'
export const STEP_SITE = 'afp_getfildirparams (etc/afpd/filedir.c:120)'
const LSTATS = 11000 // lantest 9's requests: one lstat more each

// The record of a fixture run, judged against the other (scripts/compare).
function realRecord(work: string, current: string, baseline: string): HistoryRecord {
  const out = path.join(work, `verdict-${current}.json`)
  const r = spawnSync(
    path.join(REPO_ROOT, 'scripts', 'compare'),
    [
      '--out',
      out,
      '--baseline',
      path.join(FIXTURES, `${baseline}.json`),
      path.join(FIXTURES, `${current}.json`)
    ],
    { encoding: 'utf8' }
  )
  if (r.status !== 0) throw new Error(`scripts/compare failed: ${r.stderr}`)
  return makeRecord(out, {
    commit: '0'.repeat(40),
    date: '2026-01-01T00:00:00.000Z',
    runId: 1,
    key: '',
    release: ''
  })
}

let cached: [HistoryRecord, HistoryRecord] | null = null

export function realRecords(work: string): [HistoryRecord, HistoryRecord] {
  cached ??= [
    realRecord(work, 'lantest-sys-a', 'lantest-sys-b'),
    realRecord(work, 'lantest-sys-b', 'lantest-sys-a')
  ]
  return cached
}

// a commit name as git makes them: 40 hex digits, unlike its neighbours'
export function commitOf(i: number): string {
  return createHash('sha1').update(`afpbench history page ${i}`).digest('hex')
}

export interface Made {
  dir: string
  records: (HistoryRecord & Record<string, unknown>)[]
  stepAt: number // the run where the injected step begins
  releases: Record<number, string>
}

// n runs of key '' written to dir in the data branch's layout.
export function makeHistory(dir: string, n: number, work: string): Made {
  const [a, b] = realRecords(work)
  const stepAt = Math.floor(n * 0.6)
  const releases: Record<number, string> = {
    [Math.floor(n * 0.25)]: 'v4.3.0',
    [Math.floor(n * 0.8)]: 'v4.4.0'
  }
  const skippedAt = stepAt - 7
  // the aggregate's move: LSTATS over the run's AFP ops (its floor is one
  // call over them)
  const ops = 1 / (a.aggregates[STEP_METRIC]?.floor ?? 1e-5)
  const records: Made['records'] = []
  for (let i = 0; i < n; i++) {
    const base = structuredClone(i % 2 === 0 ? a : b)
    const extra: Record<string, unknown> = {
      subject: `commit ${i}: ${i % 3 === 0 ? 'afpd: tidy the volume code' : 'docs: a line about CNID backends'}`
    }
    if (i >= stepAt) {
      for (const m of [STEP_METRIC, 'aggregate.afpd_sys_total_per_op'])
        if (base.aggregates[m] !== undefined) base.aggregates[m].v += LSTATS / ops
      for (const m of [STEP_TEST_ROW, 'lantest.9.afpd_sys_total'])
        if (base.tests[m] !== undefined) base.tests[m] += LSTATS
    }
    if (i === stepAt) {
      extra.subject = STEP_SUBJECT
      const before = a.aggregates[STEP_METRIC]?.v ?? 0
      extra.steps = [
        {
          metric: STEP_METRIC,
          before,
          after: before + LSTATS / ops,
          commands: [{ command: STEP_COMMAND, calls: [{ call: 'lstat', before: 1, after: 2 }] }],
          site: STEP_SITE
        }
      ]
    } else if (i === skippedAt) {
      base.aggregates = {}
      base.tests = {}
      extra.source = 'skipped'
      extra.skip_reason = 'meson: etc/afpd/volume.c does not compile'
    } else if (i > 0 && i % 37 === 0) {
      extra.source = 'reused'
      extra.reused_from = commitOf(i - 1)
    }
    const record = {
      ...base,
      commit: commitOf(i),
      date: new Date(Date.UTC(2026, 0, 1) + i * 6 * 3600_000).toISOString(),
      runId: 1000 + i,
      release: releases[i] ?? '',
      ...extra
    }
    records.push(record)
    const file = path.join(
      dir,
      'runs',
      'default',
      record.date.slice(0, 7),
      `${runName(record)}.json`
    )
    mkdirSync(path.dirname(file), { recursive: true })
    writeFileSync(file, `${JSON.stringify(record)}\n`)
  }
  return { dir, records, stepAt, releases }
}
