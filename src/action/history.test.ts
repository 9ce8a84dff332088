import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { readTrend, recordRun, writesHistory } from './history.js'
import type { HistoryRecord } from './history-record.js'
import { appendRecord, appendRecords, keyDir, readHistory, runPath } from './history-store.js'
import { FakeGitHub } from './testing/fake-api.js'
import { testConfig } from './testing/config.js'
import { testEvent } from './testing/event.js'
import type { Verdict } from './verdict.js'

const noSleep = (): Promise<void> => Promise.resolve()
const log = { info: () => {}, warning: () => {}, notice: () => {} }

function record(i: number, over: Partial<HistoryRecord> = {}): HistoryRecord {
  return {
    schema: 'afpbench-history/1',
    commit: (0xabc000 + i).toString(16).padStart(40, '0'),
    date: new Date(Date.UTC(2026, 10, 1, 0, i)).toISOString(),
    runId: 500 + i,
    key: '',
    release: '',
    provenance: { netatalk: '4.4.0', build: '', afpConf: '', runner: 'x', suite: 's' },
    aggregates: { 'aggregate.afpd_r_per_op': { v: 1 + i / 1000, kind: 'io', unit: 'syscalls/op' } },
    tests: { 'lantest.1.afpd_r': 3 },
    ...over
  }
}

function tipFiles(api: FakeGitHub, branch: string): string[] {
  const tip = api.branches.get(branch) ?? ''
  const tree = api.commits.get(tip)?.tree ?? ''
  return (api.trees.get(tree) ?? []).map((f) => f.path).sort()
}

describe('the data branch', () => {
  it('the first run makes the branch: its run file and a README', async () => {
    const api = new FakeGitHub()
    const w = await appendRecord(api, 'afpbench-data', record(1), { sleep: noSleep })
    expect(w).toMatchObject({ created: true, attempts: 1, archived: 0 })
    expect(tipFiles(api, 'afpbench-data')).toEqual(['README.md', runPath(record(1))])
    expect(runPath(record(1))).toBe(
      'runs/default/2026-11/20261101T000100.000Z-000000000000-501.json'
    )
    expect(api.commits.get(w.commit)?.parents).toEqual([])
  })

  it('each later run adds one file on top of the tip, and a release is kept apart', async () => {
    const api = new FakeGitHub()
    await appendRecord(api, 'd', record(1), { sleep: noSleep })
    const tip = api.branches.get('d')
    const w = await appendRecord(api, 'd', record(2, { release: 'v4.4.1' }), { sleep: noSleep })
    expect(api.commits.get(w.commit)?.parents).toEqual([tip])
    expect(tipFiles(api, 'd')).toEqual([
      'README.md',
      'releases/default/20261101T000200.000Z-v4.4.1.json',
      runPath(record(1)),
      runPath(record(2))
    ])
  })

  it('a writer that lost the race builds again on the new tip, and loses nothing', async () => {
    const api = new FakeGitHub()
    await appendRecord(api, 'd', record(1), { sleep: noSleep })
    // another job moves the branch between this writer's read and its move
    api.failures.set('moveBranch', [422])
    const slept: number[] = []
    const w = await appendRecord(api, 'd', record(2), {
      sleep: (ms) => {
        slept.push(ms)
        return Promise.resolve()
      }
    })
    expect(w.attempts).toBe(2)
    expect(slept).toHaveLength(1)
    expect(slept[0]).toBeGreaterThanOrEqual(500)
    expect(tipFiles(api, 'd')).toContain(runPath(record(2)))
  })

  it('gives up after six lost races, with the API error', async () => {
    const api = new FakeGitHub()
    await appendRecord(api, 'd', record(1), { sleep: noSleep })
    api.failures.set('moveBranch', 422)
    await expect(appendRecord(api, 'd', record(2), { sleep: noSleep })).rejects.toThrow(
      /moveBranch failed/
    )
    expect(api.callsTo('moveBranch')).toHaveLength(6)
  })

  it('past keep + batch runs, folds the oldest into one archive file', async () => {
    const api = new FakeGitHub()
    const opts = { sleep: noSleep, keep: 3, batch: 2 }
    for (let i = 1; i <= 5; i++) await appendRecord(api, 'd', record(i), opts)
    expect(tipFiles(api, 'd').filter((f) => f.startsWith('runs/'))).toHaveLength(5)
    const w = await appendRecord(api, 'd', record(6), opts)
    expect(w.archived).toBe(3)
    const files = tipFiles(api, 'd')
    expect(files.filter((f) => f.startsWith('runs/'))).toEqual(
      [4, 5, 6].map((i) => runPath(record(i)))
    )
    const archive = files.find((f) => f.startsWith('archive/default/')) ?? ''
    expect(archive).toMatch(
      /20261101T000100.000Z-000000000000-501_20261101T000300.000Z-000000000000-503\.json$/
    )
    const tree = api.trees.get(api.commits.get(w.commit)?.tree ?? '') ?? []
    const blob = api.blobs.get(tree.find((f) => f.path === archive)?.blobSha ?? '') ?? ''
    const folded = JSON.parse(Buffer.from(blob, 'base64').toString()) as {
      records: HistoryRecord[]
    }
    expect(folded.records.map((r) => r.runId)).toEqual([501, 502, 503])
    // the archive keeps the aggregates the trend draws, not every test's row
    expect(folded.records[0].tests).toEqual({})
    expect(folded.records[0].aggregates).toEqual(record(1).aggregates)
  })

  it('many runs in one commit (a backfill), retried when it lost a race, the oldest new ones folded', async () => {
    const api = new FakeGitHub()
    const opts = { sleep: noSleep, keep: 3, batch: 2 }
    // two runs on the branch, at minutes 10 and 11; four new ones, older
    for (const i of [10, 11]) await appendRecord(api, 'd', record(i), opts)
    const commits = api.callsTo('createCommit').length
    api.failures.set('moveBranch', [422])
    const w = await appendRecords(
      api,
      'd',
      [1, 2, 3, 4].map((i) => record(i)),
      opts
    )
    expect(w.attempts).toBe(2)
    // one commit per attempt, never one per run
    expect(api.callsTo('createCommit').length - commits).toBe(2)
    expect(w.paths).toEqual([1, 2, 3, 4].map((i) => runPath(record(i))))
    // six runs, keep 3 + batch 2: the oldest three, all new, go straight to
    // the archive; nothing is lost
    expect(w.archived).toBe(3)
    const files = tipFiles(api, 'd')
    expect(files.filter((f) => f.startsWith('runs/'))).toEqual(
      [4, 10, 11].map((i) => runPath(record(i)))
    )
    const archive = files.find((f) => f.startsWith('archive/')) ?? ''
    const tree = api.trees.get(api.commits.get(w.commit)?.tree ?? '') ?? []
    const blob = api.blobs.get(tree.find((f) => f.path === archive)?.blobSha ?? '') ?? ''
    const folded = JSON.parse(Buffer.from(blob, 'base64').toString()) as {
      records: HistoryRecord[]
    }
    expect(folded.records.map((r) => r.runId)).toEqual([501, 502, 503])
  })

  it('reads the newest runs of a key, oldest first, and its newest release', async () => {
    const api = new FakeGitHub()
    for (let i = 1; i <= 6; i++)
      await appendRecord(api, 'd', record(i, { release: i === 2 ? 'v1.0.0' : '' }), {
        sleep: noSleep
      })
    await appendRecord(api, 'd', record(7, { key: 'sqlite' }), { sleep: noSleep })
    const h = await readHistory(api, 'd', '', 4)
    expect(h.missing).toBe(false)
    expect(h.runs).toBe(6)
    expect(h.records.map((r) => r.runId)).toEqual([503, 504, 505, 506])
    expect(h.release?.release).toBe('v1.0.0')
    const other = await readHistory(api, 'd', 'sqlite', 4)
    expect(other.records.map((r) => r.runId)).toEqual([507])
    expect(other.release).toBeNull()
  })

  it('a missing branch is a first run; a broken file is skipped and said', async () => {
    const api = new FakeGitHub()
    expect((await readHistory(api, 'd', '', 30)).missing).toBe(true)
    await appendRecord(api, 'd', record(1), { sleep: noSleep })
    // someone commits a broken file by hand
    const blob = await api.createBlob(Buffer.from('{"schema": "nope"}').toString('base64'))
    const tip = api.branches.get('d') ?? ''
    const tree = await api.createTree(
      [{ path: 'runs/default/2026-11/20261102T000000.000Z-broken.json', blobSha: blob }],
      api.commits.get(tip)?.tree
    )
    await api.moveBranch('d', await api.createCommit('hand edit', tree, [tip]))
    const h = await readHistory(api, 'd', '', 30)
    expect(h.records).toHaveLength(1)
    expect(h.problems).toEqual([expect.stringMatching(/broken\.json: schema is "nope"/)])
  })

  it('keys become safe path names', () => {
    expect(keyDir('')).toBe('default')
    expect(keyDir('4.4 sqlite/x')).toBe('4.4_sqlite_x')
    expect(keyDir('../up')).toBe('up')
  })
})

const event = testEvent

describe('who writes the history', () => {
  const config = testConfig()
  it.each([
    [{}, true, ''],
    [{ name: 'release', releaseTag: 'v4.4.0', ref: '' }, true, ''],
    [
      { ref: 'refs/heads/topic' },
      false,
      /a push to refs\/heads\/topic, not to the default branch \(main\)/
    ],
    [
      { name: 'pull_request', pullRequest: 4 },
      false,
      /a pull_request run reads the history, never writes it/
    ],
    [{ name: 'pull_request', pullRequest: 4, fork: true }, false, /never writes/],
    [{ name: 'workflow_run' }, false, /never writes/],
    [{ name: 'release', releaseTag: '' }, false, /names no tag/]
  ] as const)('%j: %s', (over, write, why) => {
    const r = writesHistory(config, event(over))
    expect(r.write).toBe(write)
    if (why !== '') expect(r.why).toMatch(why)
  })

  it('nobody, with history-branch empty or in publish mode', () => {
    expect(writesHistory(testConfig({ historyBranch: '' }), event({})).write).toBe(false)
    expect(writesHistory(testConfig({ mode: 'publish' }), event({})).write).toBe(false)
  })
})

describe('one run of the action and the history', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'history-'))
  const results = path.join(dir, 'results')
  mkdirSync(results)
  // verdict.json as scripts/compare writes it: the record is made from the file
  writeFileSync(
    path.join(results, 'verdict.json'),
    JSON.stringify({
      status: 'pass',
      rows: [
        {
          metric: 'aggregate.afpd_r_per_op',
          group: 'aggregate',
          kind: 'io',
          unit: 'syscalls/op',
          current: 1.2,
          floor: null
        }
      ],
      current: { provenance: { suite_version: 's' } }
    })
  )
  const verdict: Verdict = {
    status: 'pass',
    summary: '',
    headline: '',
    icon: '',
    decidedBy: '',
    errors: [],
    rows: [
      {
        metric: 'aggregate.afpd_r_per_op',
        ratio: 1,
        state: 'pass',
        group: 'aggregate',
        kind: 'io',
        unit: 'syscalls/op',
        current: 1.2,
        floor: null
      }
    ]
  }

  it('a push writes this run; its summary names a step the history and it make', async () => {
    const api = new FakeGitHub()
    for (let i = 1; i <= 5; i++)
      await appendRecord(
        api,
        'afpbench-data',
        record(i, { aggregates: { 'aggregate.afpd_r_per_op': { v: 1, kind: 'io', unit: '' } } }),
        { sleep: noSleep }
      )
    const config = testConfig({ resultsDir: results })
    const read = await readTrend(api, config, event({}), dir, 'https://github.com/o/r', log)
    const trend = JSON.parse(readFileSync(read.file, 'utf8')) as { points: unknown[] }
    expect(trend.points).toHaveLength(5)
    const summary = await recordRun(
      api,
      {
        config,
        event: event({}),
        verdict,
        runId: 9,
        history: read.history,
        serverRepo: 'https://github.com/o/r',
        write: { sleep: noSleep }
      },
      log
    )
    expect((await readHistory(api, 'afpbench-data', '', 30)).records).toHaveLength(6)
    expect(summary).toMatch(/### Steps in main's history/)
    expect(summary).toMatch(
      /\*\*\[bbbbbbb\]\(https:\/\/github.com\/o\/r\/commit\/b{40}\)\*\* \([\d-]+\): afpd reads\/op \+20 %/
    )
  })

  it('a pull request from a fork reads the trend and writes nothing', async () => {
    const api = new FakeGitHub()
    await appendRecord(api, 'afpbench-data', record(1), { sleep: noSleep })
    const writesBefore = api.calls.length
    const config = testConfig({ resultsDir: results })
    const pr = event({ name: 'pull_request', pullRequest: 3, fork: true, ref: '' })
    const read = await readTrend(api, config, pr, dir, '', log)
    expect(read.file).not.toBe('')
    await recordRun(
      api,
      { config, event: pr, verdict, runId: 9, history: read.history, serverRepo: '' },
      log
    )
    const after = api.calls.slice(writesBefore).map((c) => c.method)
    expect(after.filter((m) => m.startsWith('create') || m === 'moveBranch')).toEqual([])
  })

  it('an unreadable history is a warning and no trend, never a failed run', async () => {
    const api = new FakeGitHub()
    api.failures.set('branchSha', 500)
    const warnings: string[] = []
    const read = await readTrend(api, testConfig(), event({}), dir, '', {
      ...log,
      warning: (m) => warnings.push(m)
    })
    expect(read.file).toBe('')
    expect(warnings).toEqual([
      expect.stringMatching(/Could not read the history on branch 'afpbench-data'/)
    ])
  })

  it('the trend file for a missing branch says there is no history yet', async () => {
    const api = new FakeGitHub()
    const read = await readTrend(api, testConfig(), event({ name: 'pull_request' }), dir, '', log)
    const t = JSON.parse(readFileSync(read.file, 'utf8')) as { points: unknown[]; branch: string }
    expect(t.points).toEqual([])
    expect(t.branch).toBe('main')
  })
})
