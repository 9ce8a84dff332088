import { mkdtempSync, readFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import type { EventInfo } from './event.js'
import { RECORD_SCHEMA, type HistoryRecord } from './history-record.js'
import type { History } from './history-store.js'
import { findPrevious, findReference, writeReference, type Reference } from './reference.js'
import { FakeGitHub } from './testing/fake-api.js'

const sha = (i: number): string => i.toString(16).padStart(2, '0').repeat(20)

// main's run of commit i: afpd's writes per op w, a timing, a per-test count
function record(i: number, w: number): HistoryRecord {
  return {
    schema: RECORD_SCHEMA,
    commit: sha(i),
    date: `2026-11-${String(10 + i).padStart(2, '0')}T10:00:00.000Z`,
    runId: i,
    key: 'default',
    release: '',
    provenance: { netatalk: '4.2.3', build: '', afpConf: '', runner: 'EPYC, 2 cores', suite: '' },
    aggregates: {
      'aggregate.afpd_w_per_op': { v: w, kind: 'io', unit: 'syscalls/op', floor: 0.0001 },
      'aggregate.time_per_op': { v: 0.09, kind: 'time', unit: 'ms/op' }
    },
    tests: { 'lantest.1.afpd_w': w * 7000 }
  }
}

function history(records: HistoryRecord[]): History {
  return { missing: false, records, release: null, runs: records.length, problems: [] }
}

function pr(base: string, head = 'f'.repeat(40)): EventInfo {
  return {
    name: 'pull_request',
    repository: 'o/r',
    pullRequest: 7,
    headSha: head,
    baseSha: base,
    fork: false,
    headRepository: 'o/r',
    workflowRun: null,
    ref: '',
    defaultBranch: 'main',
    releaseTag: ''
  }
}

function log(): {
  lines: string[]
  info(m: string): void
  warning(m: string): void
  notice(m: string): void
} {
  const lines: string[] = []
  return {
    lines,
    info: (m) => lines.push(m),
    warning: (m) => lines.push(`warning: ${m}`),
    notice: (m) => lines.push(`notice: ${m}`)
  }
}

describe("a pull request's reference: main's run at its merge-base", () => {
  const api = new FakeGitHub()
  api.mainLine = [1, 2, 3, 4, 5, 6, 7, 8].map(sha)
  // main measured at 1-4 and 6; afpd's writes doubled at 6 (ea = ad)
  const h = history([
    record(1, 0.5),
    record(2, 0.5),
    record(3, 0.5),
    record(4, 0.5),
    record(6, 1),
    record(6, 1)
  ])

  it('the merge-base itself, when main measured it: its count rows, not its timings', async () => {
    const ref = (await findReference(api, pr(sha(6)), h, 'main', log())) as Reference
    expect(ref.commit).toBe(sha(6))
    expect(ref.merge_base).toBe(sha(6))
    expect(ref.behind).toBe(0)
    expect(ref.values).toEqual({ 'aggregate.afpd_w_per_op': 1, 'lantest.1.afpd_w': 7000 })
    expect(ref.runner).toBe('EPYC, 2 cores')
  })

  it('else the nearest ancestor main measured, and how far back it is', async () => {
    const l = log()
    const ref = (await findReference(api, pr(sha(8)), h, 'main', l)) as Reference
    expect(ref.commit).toBe(sha(6))
    expect(ref.behind).toBe(2)
    const older = (await findReference(api, pr(sha(5)), h, 'main', l)) as Reference
    expect([older.commit, older.behind, older.values['aggregate.afpd_w_per_op']]).toEqual([
      sha(4),
      1,
      0.5
    ])
  })

  it("carries main's steps up to that run, for the rows to say since when", async () => {
    const steps = (await findReference(api, pr(sha(8)), h, 'main', log()))?.steps
    expect(steps).toContainEqual({ metric: 'aggregate.afpd_w_per_op', commit: sha(6) })
    // before the step, no step yet
    expect((await findReference(api, pr(sha(5)), h, 'main', log()))?.steps).toEqual([])
  })

  it('none in the history, or a merge-base that cannot be read: none, and said why', async () => {
    const l = log()
    expect(await findReference(api, pr(sha(8)), history([record(9, 1)]), 'main', l)).toBeNull()
    expect(l.lines.at(-1)).toBe(
      `No run of main at the merge-base ${sha(8).slice(0, 7)} or the 7 commits before it in the history read: the counts are judged against the stored baseline.`
    )
    expect(await findReference(api, pr('e'.repeat(40)), h, 'main', l)).toBeNull()
    expect(l.lines.at(-1)).toBe(
      'No reference run of main: the merge-base could not be read (No common ancestor); the counts are judged against the stored baseline.'
    )
    expect(await findReference(api, pr(''), h, 'main', l)).toBeNull()
  })

  it('written for the gate on a pull request only, in the schema the verdict reads', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'ref-'))
    const l = log()
    const file = await writeReference(api, pr(sha(7)), h, 'main', dir, l)
    const ref = JSON.parse(readFileSync(file, 'utf8')) as Reference
    expect(ref.schema).toBe('afpbench-reference/1')
    expect(Object.values(ref.values).every((v) => typeof v === 'number')).toBe(true)
    expect(l.lines.at(-1)).toBe(
      `Counts reference: the run of main at ${sha(6).slice(0, 7)} (1 commit before the merge-base ${sha(7).slice(0, 7)}), measured 2026-11-16; timings against the stored baseline.`
    )
    // a push elsewhere than the default branch has none
    const push = { ...pr(sha(7)), name: 'push', ref: 'refs/heads/feature' }
    expect(await writeReference(api, push, h, 'main', dir, l)).toBe('')
    expect(await writeReference(null, pr(sha(7)), h, 'main', dir, l)).toBe('')
    expect(await writeReference(api, pr(sha(7)), null, 'main', dir, l)).toBe('')
  })
})

describe("a push's reference: main's previous run, and the pull requests that brought the commit", () => {
  const api = new FakeGitHub()
  api.mainLine = [1, 2, 3, 4, 5, 6, 7, 8].map(sha)
  const h = history([record(1, 0.5), record(2, 0.5), record(4, 1)])
  const push = (head: string): EventInfo => ({
    ...pr('', head),
    name: 'push',
    pullRequest: null,
    ref: 'refs/heads/main'
  })

  it('the nearest ancestor with a run, never the commit itself; merged pull requests named', async () => {
    api.mergedPulls.set(sha(4), [12])
    // a push of 4 (the step): its previous run is 2's, and #12 brought it
    const step = (await findPrevious(api, push(sha(4)), h, 'main', log())) as Reference
    expect([step.role, step.commit, step.behind, step.pull_requests]).toEqual([
      'previous',
      sha(2),
      1,
      [12]
    ])
    expect(step.values['aggregate.afpd_w_per_op']).toBe(0.5)
    // a later push (a README change, 6): judged against 4's run, with the step
    const later = (await findPrevious(api, push(sha(6)), h, 'main', log())) as Reference
    expect([later.commit, later.pull_requests]).toEqual([sha(4), []])
    expect(later.steps).toContainEqual({ metric: 'aggregate.afpd_w_per_op', commit: sha(4) })
  })

  it('written for the gate on a push to the default branch; unread pull requests are null, said', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'ref-'))
    const l = log()
    api.failures.set('mergedPullsOf', 403)
    const file = await writeReference(api, push(sha(5)), h, 'main', dir, l)
    api.failures.delete('mergedPullsOf')
    const ref = JSON.parse(readFileSync(file, 'utf8')) as Reference
    expect([ref.role, ref.commit, ref.pull_requests]).toEqual(['previous', sha(4), null])
    expect(l.lines).toContain(
      `The pull requests that brought ${sha(5).slice(0, 7)} could not be read (fake mergedPullsOf failed): a step here is said, not failed.`
    )
    expect(l.lines.at(-1)).toBe(
      `Counts reference: the previous run of main, at ${sha(4).slice(0, 7)} (the parent), measured 2026-11-14; timings against the stored baseline.`
    )
    // no run before it: none
    expect(await findPrevious(api, push(sha(1)), h, 'main', log())).toBeNull()
  })
})
