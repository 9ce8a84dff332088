// Publishing the history page to its branch (pages.ts), against the recording
// fake of the REST API, with a data branch written by the action's own
// history store from real records (history-page/testing/make-history.ts).
import { mkdtempSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { decodeChunk, readIndex, readKeyData } from '../history-page/page-data.js'
import { makeHistory, STEP_TEST_ROW, type Made } from '../history-page/testing/make-history.js'
import type { HistoryRecord } from './history-record.js'
import { appendRecord } from './history-store.js'
import { pageUrl } from './page-url.js'
import { gitBlobSha, publishPage, writePage } from './pages.js'
import type { Logger } from './publish.js'
import { testConfig } from './testing/config.js'
import { testEvent } from './testing/event.js'
import { FakeGitHub } from './testing/fake-api.js'

const DATA = 'afpbench-data'
const PAGES = 'afpbench-pages'
const REPO = 'https://github.com/octo-org/afp-server'
const work = mkdtempSync(path.join(os.tmpdir(), 'afpbench-pages-'))
const noSleep = (): Promise<void> => Promise.resolve()
let made: Made

// GitHub names a blob by its content: so does this fake, as the page relies
// on it to leave unchanged files alone.
class ContentAddressed extends FakeGitHub {
  override async createBlob(content: string): Promise<string> {
    const tmp = await super.createBlob(content)
    this.blobs.delete(tmp)
    const sha = gitBlobSha(Buffer.from(content, 'base64').toString('utf8'))
    this.blobs.set(sha, content)
    return sha
  }
}

class Log implements Logger {
  lines: string[] = []
  info(m: string): void {
    this.lines.push(`info: ${m}`)
  }
  warning(m: string): void {
    this.lines.push(`warning: ${m}`)
  }
  notice(m: string): void {
    this.lines.push(`notice: ${m}`)
  }
}

function files(gh: FakeGitHub, branch: string): Map<string, string> {
  const tip = gh.branches.get(branch) ?? ''
  const tree = gh.trees.get(gh.commits.get(tip)?.tree ?? '') ?? []
  return new Map(
    tree.map((f) => [f.path, Buffer.from(gh.blobs.get(f.blobSha ?? '') ?? '', 'base64').toString()])
  )
}

async function history(gh: FakeGitHub, records: HistoryRecord[]): Promise<void> {
  // small compaction settings: the oldest runs fold into archive files
  for (const r of records) await appendRecord(gh, DATA, r, { keep: 20, batch: 10, sleep: noSleep })
}

const config = testConfig({ pagesBranch: PAGES })

function publish(gh: FakeGitHub, log = new Log(), over = {}): Promise<string> {
  return publishPage(
    gh,
    { config: { ...config, ...over }, event: testEvent(), serverRepo: REPO, sleep: noSleep },
    log
  )
}

function runsOf(tree: Map<string, string>, dir = 'default'): string[] {
  const data = readKeyData(
    tree.get(`data/${dir}/key.json`) ?? '',
    tree.get(`data/${dir}/rows.json`) ?? '',
    'key.json'
  )
  return data.chunks.flatMap((c) =>
    decodeChunk(tree.get(`data/${dir}/${c.file}`) ?? '', c.file, c.runs).runs.map((r) => r.commit)
  )
}

beforeAll(() => {
  made = makeHistory(path.join(work, 'h'), 60, work)
}, 60_000)

describe('the page on its branch', () => {
  it('is made from every run of the history, archived ones included, and linked from the summary', async () => {
    const gh = new ContentAddressed()
    await history(gh, made.records.slice(0, 50))
    expect([...files(gh, DATA).keys()].some((p) => p.startsWith('archive/'))).toBe(true)
    const log = new Log()
    const summary = await publish(gh, log)
    expect(summary).toBe(
      '**History**: every count row of main across its 50 runs, and its 4 steps, on [the history page](https://octo-org.github.io/afp-server/).\n'
    )
    const tree = files(gh, PAGES)
    for (const f of ['index.html', 'app.js', 'app.css', 'data/index.json', 'data/default/key.json'])
      expect(tree.has(f), f).toBe(true)
    expect(runsOf(tree)).toEqual(made.records.slice(0, 50).map((r) => r.commit))
    expect(readIndex(tree.get('data/index.json') ?? '').repoUrl).toBe(REPO)
    const data = readKeyData(
      tree.get('data/default/key.json') ?? '',
      tree.get('data/default/rows.json') ?? '',
      'k'
    )
    expect(data.steps.find((s) => s.metric === STEP_TEST_ROW)?.at).toBe(made.stepAt)
    expect(log.lines.join('\n')).toMatch(
      /History page: 50 runs, 4 steps; \d+ files written to branch 'afpbench-pages' \(\d+ read from 'afpbench-data'\): https:\/\/octo-org/
    )
  })

  it('reads only what is new on the next push, and writes only what changed: one commit', async () => {
    const gh = new ContentAddressed()
    await history(gh, made.records.slice(0, 50))
    await publish(gh)
    await history(gh, made.records.slice(50, 51))
    const before = gh.calls.length
    const log = new Log()
    await publish(gh, log)
    const calls = gh.calls.slice(before)
    // the new run's file, and the page's own files (index, key, rows, one chunk)
    const reads = calls.filter((c) => c.method === 'readBlob')
    expect(reads).toHaveLength(5)
    expect(log.lines.join('\n')).toMatch(/\(1 read from 'afpbench-data'\)/)
    // the chunk the run went into, key.json and index.json: the assets and
    // the full chunks stay as they were
    expect(calls.filter((c) => c.method === 'createBlob')).toHaveLength(3)
    expect(calls.filter((c) => c.method === 'createCommit')).toHaveLength(1)
    expect(runsOf(files(gh, PAGES))).toEqual(made.records.slice(0, 51).map((r) => r.commit))
    // nothing new: no commit at all
    const again = gh.calls.length
    await publish(gh)
    expect(gh.calls.slice(again).filter((c) => c.method === 'createCommit')).toHaveLength(0)
  })

  it('keeps every key of a matrix, two writers racing: the one that lost builds on the new tip', async () => {
    const gh = new ContentAddressed()
    const sqlite = made.records.slice(0, 8).map((r) => ({ ...r, key: 'sqlite' }))
    for (const r of [...made.records.slice(0, 8), ...sqlite])
      await appendRecord(gh, DATA, r, { sleep: noSleep })
    const logs = [new Log(), new Log()]
    await Promise.all([publish(gh, logs[0]), publish(gh, logs[1], { commentKey: 'sqlite' })])
    const tree = files(gh, PAGES)
    expect(readIndex(tree.get('data/index.json') ?? '').keys.map((k) => [k.dir, k.runs])).toEqual([
      ['default', 8],
      ['sqlite', 8]
    ])
    expect(runsOf(tree, 'sqlite')).toHaveLength(8)
    expect(logs.map((l) => l.lines.join('\n')).join('\n')).toMatch(/after 2 attempts/)
  })

  it('is made again from the history when what the branch holds cannot be read', async () => {
    const gh = new ContentAddressed()
    await history(gh, made.records.slice(0, 12))
    await publish(gh)
    // someone edits key.json on the branch
    const tip = gh.branches.get(PAGES) ?? ''
    const blob = await gh.createBlob(
      Buffer.from('{"schema":"afpbench-page/1","dir":"../x"}').toString('base64')
    )
    const tree = await gh.createTree(
      [{ path: 'data/default/key.json', blobSha: blob }],
      gh.commits.get(tip)?.tree
    )
    gh.branches.set(PAGES, await gh.createCommit('edit', tree, [tip]))
    const log = new Log()
    await publish(gh, log)
    expect(log.lines.join('\n')).toMatch(
      /the page on the branch cannot be read .*made again from the history/
    )
    expect(runsOf(files(gh, PAGES))).toHaveLength(12)
  })

  it('skips a run file that is not a record, saying which', async () => {
    const gh = new ContentAddressed()
    await history(gh, made.records.slice(0, 6))
    const tip = gh.branches.get(DATA) ?? ''
    const blob = await gh.createBlob(Buffer.from('not json').toString('base64'))
    const tree = await gh.createTree(
      [{ path: 'runs/default/2026-01/bad.json', blobSha: blob }],
      gh.commits.get(tip)?.tree
    )
    gh.branches.set(DATA, await gh.createCommit('bad', tree, [tip]))
    const log = new Log()
    await publish(gh, log)
    expect(log.lines.join('\n')).toMatch(
      /warning: History page: runs\/default\/2026-01\/bad.json is not JSON.*\(skipped\)/
    )
    expect(runsOf(files(gh, PAGES))).toHaveLength(6)
  })

  it('gives up after six lost races, and the run goes on with a warning', async () => {
    const gh = new ContentAddressed()
    await history(gh, made.records.slice(0, 4))
    await publish(gh)
    await history(gh, made.records.slice(4, 5))
    gh.failures.set('moveBranch', 422)
    const moves = gh.callsTo('moveBranch').length
    await expect(
      writePage(
        gh,
        {
          pagesBranch: PAGES,
          historyBranch: DATA,
          key: '',
          repoUrl: REPO,
          url: '',
          sleep: noSleep
        },
        new Log()
      )
    ).rejects.toThrow(/fake moveBranch failed/)
    expect(gh.callsTo('moveBranch').length - moves).toBe(6)
    const log = new Log()
    expect(await publish(gh, log)).toBe('')
    expect(log.lines.join('\n')).toMatch(
      /warning: Could not publish the history page to branch 'afpbench-pages'/
    )
  })
})

describe('who publishes', () => {
  it('a run that writes the history, and no other', async () => {
    const gh = new ContentAddressed()
    await history(gh, made.records.slice(0, 4))
    const log = new Log()
    const pr = testEvent({ name: 'pull_request', ref: 'refs/pull/1/merge' })
    expect(await publishPage(gh, { config, event: pr, serverRepo: REPO }, log)).toBe('')
    expect(log.lines).toEqual([
      'info: History page not published: a pull_request run reads the history, never writes it.'
    ])
    expect(await publish(gh, new Log(), { pagesBranch: '' })).toBe('')
    const noHistory = new Log()
    expect(await publish(gh, noHistory, { historyBranch: '' })).toBe('')
    expect(noHistory.lines).toEqual([
      "info: History page not published: 'history-branch' is empty."
    ])
    expect(gh.branches.has(PAGES)).toBe(false)
    const none = new Log()
    expect(await publishPage(null, { config, event: testEvent(), serverRepo: REPO }, none)).toBe('')
    expect(none.lines).toEqual([
      "warning: History page not published: there is no token to write branch 'afpbench-pages' with."
    ])
  })
})

describe("the page's address", () => {
  const at = (over: Partial<typeof config>, repo = REPO): string =>
    pageUrl({ ...config, ...over }, repo)

  it("is GitHub Pages' address of the repository, or pages-url, with the key", () => {
    expect(at({})).toBe('https://octo-org.github.io/afp-server/')
    expect(at({}, 'https://github.com/Octo-Org/octo-org.github.io')).toBe(
      'https://octo-org.github.io/'
    )
    expect(at({ commentKey: 'cnid sqlite' })).toBe(
      'https://octo-org.github.io/afp-server/#key=cnid_sqlite'
    )
    expect(at({ pagesUrl: 'https://perf.example.org/afp/' })).toBe('https://perf.example.org/afp/')
    // pages-url alone: a page published elsewhere
    expect(at({ pagesBranch: '', pagesUrl: 'https://perf.example.org/afp/' })).toBe(
      'https://perf.example.org/afp/'
    )
  })

  it('is none where the action cannot know it', () => {
    expect(at({ pagesBranch: '' })).toBe('')
    expect(at({}, 'https://ghe.example.com/o/r')).toBe('')
  })
})
