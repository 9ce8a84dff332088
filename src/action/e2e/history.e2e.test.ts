// End to end: the default branch's history (docs/history.md). The committed
// dist/ bundle runs as GitHub runs it against a REAL netatalk server
// (scripts/local-server), every run measured; GitHub's REST API is the local
// stand-in (fake-github.ts), which keeps git objects and branches as GitHub
// would and counts what git would store for them. The story:
//
//   1. a push to main with no data branch yet makes it (the first run)
//   2. a release in mode: baseline pools two sessions; its run is kept apart
//   3. two more pushes; then afp.conf changes (ea = ad) and three pushes more
//   4. a pull request reads the history: the comment's Trend section, its
//      chart committed with the others, the change since the release, and the
//      step main took at the afp.conf change, named by its commit
//   5. a pull request from a fork reads and writes nothing
//   6. the next push names that step in its job summary
//
// And through the real REST adapter: two writers racing both land; 500 runs
// cost what they cost (printed), linearly, with the tip bounded.

import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { octokitApi } from '../github-api.js'
import { parseRecord, recordFromVerdict, type HistoryRecord } from '../history-record.js'
import { parseVerdict } from '../verdict.js'
import { appendRecord, COMPACT_BATCH, KEEP_RUNS, readHistory, runPath } from '../history-store.js'
import { FakeGitHubServer } from './fake-github.js'
import {
  e2ePort,
  buildInjector,
  REPO_ROOT,
  requireE2ePrerequisites,
  runAction,
  startLocalServer,
  stopLocalServer,
  type ActionRun,
  type ServerSettings
} from './harness.js'

const PORT = e2ePort(5) // 10595
const PASSWORD = 'h1story8'
const TOKEN = 'ghs_historyTokenThatMustNeverBePrinted'
const DATA = 'afpbench-data'
const REPO = 'octo-org/afp-server'
const SHA = '1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b' // the harness's GITHUB_SHA

let server: ServerSettings
let push: ActionRun
const api = new FakeGitHubServer()
const workspace = mkdtempSync(path.join(os.tmpdir(), 'afpbench-e2e-history-'))

function inputs(extra: Record<string, string> = {}): Record<string, string> {
  return {
    server: `${server.host}:${server.port}`,
    'proc-io': server.procIo,
    'afp-user': server.user,
    'afp-password': server.password,
    volume: server.share,
    tests: '4,9',
    iterations: '2',
    'github-token': TOKEN,
    ...extra
  }
}

function run(
  eventName: string,
  eventFile: string,
  given: Record<string, string>,
  env: Record<string, string> = {}
): Promise<ActionRun> {
  return runAction({
    inputs: given,
    eventName,
    eventFile,
    workspace,
    apiUrl: api.url,
    jobToken: TOKEN,
    env
  })
}

// The REST adapter the action uses, pointed at the stand-in.
function rest(): ReturnType<typeof octokitApi> {
  return octokitApi(TOKEN, REPO, api.url)
}

function refWrites(branch: string): string[] {
  return api
    .writes()
    .filter(
      (r) =>
        decodeURIComponent(r.path).endsWith(`/git/refs/heads/${branch}`) ||
        (r.path.endsWith('/git/refs') && JSON.stringify(r.body).includes(branch))
    )
    .map((r) => `${r.method} ${decodeURIComponent(r.path)}`)
}

function tipFiles(branch: string): string[] {
  const tip = api.branches.get(branch) ?? ''
  return (api.trees.get(api.commits.get(tip)?.tree ?? '') ?? []).map((f) => f.path).sort()
}

// The commit of the Nth run of main in this story (the harness's SHA first).
function commit(n: number): string {
  return n === 1 ? SHA : (0xc0de00 + n).toString(16).padEnd(40, '0')
}

// A push of main's Nth commit, measured on the server as it is then.
// A pull_request event whose base is main's commit base (the merge-base, as
// the stand-in answers) and whose head is head.
function prEvent(base: string, head: string): string {
  const file = path.join(workspace, `pull_request-${base.slice(0, 7)}-${head.slice(0, 7)}.json`)
  const event = JSON.parse(
    readFileSync(path.join(REPO_ROOT, 'src/action/fixtures/events/pull_request.json'), 'utf8')
  ) as { pull_request: { base: { sha: string }; head: { sha: string } } }
  event.pull_request.base.sha = base
  event.pull_request.head.sha = head
  writeFileSync(file, JSON.stringify(event))
  return file
}

function pushRun(n: number): Promise<ActionRun> {
  return run('push', 'push.json', inputs(), { GITHUB_SHA: commit(n) })
}

beforeAll(async () => {
  requireE2ePrerequisites()
  await api.start()
  server = startLocalServer(PORT, PASSWORD)
  push = await pushRun(1)
})

afterAll(async () => {
  await api.stop()
  if (server) stopLocalServer(PORT)
})

describe('a push to the default branch', () => {
  it('passes and makes the data branch with this run (the first run)', () => {
    expect(push.status, push.log).toBe(0)
    expect(push.log).toContain(`No history yet: branch '${DATA}' does not exist`)
    expect(push.log).toMatch(
      /History: this run written to branch 'afpbench-data' as runs\/default\/\d{4}-\d\d\/\d{8}T\d{6}\.\d{3}Z-1a2b3c4d5e6f-\d+\.json \(the branch was made\)/
    )
    const files = tipFiles(DATA)
    expect(files.filter((f) => f.startsWith('runs/default/'))).toHaveLength(1)
    expect(files).toContain('README.md')
    expect(refWrites(DATA)).toEqual([`POST /repos/${REPO}/git/refs`])
  })

  it('writes the per-op aggregates and per-test counts of the run it measured', async () => {
    const h = await readHistory(rest(), DATA, '', 30)
    expect(h.records).toHaveLength(1)
    const r = h.records[0]
    expect(r.commit).toBe(SHA)
    expect(r.aggregates['aggregate.afpd_r_per_op']?.kind).toBe('io')
    expect(r.aggregates['aggregate.time_per_op']?.v).toBeGreaterThan(0)
    expect(Object.keys(r.tests).some((k) => k.startsWith('lantest.4.afpd_'))).toBe(true)
    expect(r.provenance.netatalk).toMatch(/^\d+\.\d+/)
    // the password is nowhere in what was written
    for (const b of api.blobs.values())
      expect(Buffer.from(b, 'base64').toString()).not.toContain(PASSWORD)
  })
})

describe('a release, in mode: baseline', () => {
  let rel: ActionRun
  beforeAll(async () => {
    rel = await run(
      'release',
      'release.json',
      inputs({ mode: 'baseline', baseline: 'baseline.json', 'results-dir': 'release-results' }),
      { GITHUB_SHA: commit(2) }
    )
  })

  it('pools two sessions (the default) into the baseline', () => {
    expect(rel.status, rel.log).toBe(0)
    expect(rel.log).toContain('Session 1 of 2')
    expect(rel.log).toContain('Session 2 of 2')
    const baseline = JSON.parse(readFileSync(path.join(workspace, 'baseline.json'), 'utf8')) as {
      tests: Array<{ key: string; samples: Array<{ run?: number }> }>
    }
    const t4 = baseline.tests.find((t) => t.key === 'lantest.4')
    // two iterations from each session, each sample with its session's run number
    expect(t4?.samples).toHaveLength(4)
    expect(new Set(t4?.samples.map((s) => s.run)).size).toBe(2)
  })

  it("keeps the release's figures under releases/, beside its run", async () => {
    expect(
      tipFiles(DATA).filter((f) => f.startsWith('releases/default/') && f.endsWith('-v4.3.0.json'))
    ).toHaveLength(1)
    const h = await readHistory(rest(), DATA, '', 30)
    expect(h.release?.release).toBe('v4.3.0')
    expect(h.release?.commit).toBe(commit(2))
    expect(h.records.map((r) => r.commit)).toEqual([commit(1), commit(2)])
  })
})

describe('a pull request', () => {
  let pr: ActionRun
  beforeAll(async () => {
    // main goes on: two more commits on this server, then a change of
    // afp.conf (ea = ad: extended attributes in AppleDouble files, more afpd
    // IO) and three commits on that. Every run is measured for real.
    for (const n of [3, 4]) expect((await pushRun(n)).status).toBe(0)
    stopLocalServer(PORT)
    const conf = path.join(workspace, 'ea-ad.conf')
    writeFileSync(conf, '[Global]\n[File Sharing]\nea = ad\n')
    server = startLocalServer(PORT, PASSWORD, ['--afp-conf', conf])
    // (each fails against the bundled baseline, measured with the default
    // afp.conf; a failed run is measured all the same, and kept)
    for (const n of [5, 6, 7]) expect((await pushRun(n)).status).toBe(1)
    // a pull request on main's tip, changing nothing the server does: the
    // stored baseline predates main's step. Its own results directory:
    // docs/img/trend.png is its chart
    api.mainLine = [1, 2, 3, 4, 5, 6, 7].map(commit)
    pr = await run(
      'pull_request',
      prEvent(commit(7), 'ab'.repeat(20)),
      inputs({ 'results-dir': 'pr-results' })
    )
    // six measured runs and a server restart: ~90 s on a quiet machine, and
    // CI runs other servers beside this one
  }, 900_000)

  it('is judged against main at its merge-base, not the stale baseline: a pass, the step named at the top', () => {
    // against the bundled baseline (the default afp.conf) ea = ad fails; main
    // took that step at commit 5, and main at the merge-base measured the same
    expect(pr.status, pr.log).toBe(0)
    expect(pr.log).toContain(
      `Counts reference: the run of main at ${commit(7).slice(0, 7)} (the merge-base)`
    )
    const body = api.comments.at(-1)?.body ?? ''
    const lines = body.split('\n')
    expect(lines[1]).toMatch(/^### ✅ afpbench: \*\*pass\*\* — .*\d+ moved on main, not here/)
    expect(lines[3]).toMatch(
      new RegExp(
        `^\\*\\*Already on main\\*\\* since \`${commit(5).slice(0, 7)}\`: afpd reads per AFP op 0 → `
      )
    )
    expect(lines[3]).toContain(
      `judged against \`main\` at \`${commit(7).slice(0, 7)}\` (the merge-base)`
    )
  })

  it('the comment shows the trend of main, its chart committed beside the others and open', () => {
    // the rows main moved: the trend chart is in view
    const body = api.comments.at(-1)?.body ?? ''
    expect(body).toContain('**Trend** of `main`: its last 7 runs, this run marked')
    expect(body).toMatch(
      /\n!\[trend\]\(https:\/\/github.com\/octo-org\/afp-server\/blob\/c\w+\/charts\/trend.png\?raw=true\)\n/
    )
    expect(body).not.toContain('<summary>Trend chart</summary>')
    expect(tipFiles('afpbench-assets')).toContain('charts/trend.png')
  })

  it('names the step main took at the afp.conf change by its commit, and compares with the last release', () => {
    const body = api.comments.at(-1)?.body ?? ''
    // ea = ad keeps extended attributes in AppleDouble files: afpd reads
    // them (none before), its xattr calls go and its system calls grow
    expect(body).toMatch(
      /Since the last release \(v4\.3\.0\): afpd reads\/op 0 → [\d.]+, afpd writes\/op ±0\u00a0%, afpd system calls\/op \+\d+\u00a0%\./
    )
    const at = commit(5)
    const steps = body.split('\n').filter((l) => l.startsWith('- **'))
    const named = `[${at.slice(0, 7)}](https://github.com/${REPO}/commit/${at})`
    expect(steps).toContainEqual(expect.stringMatching(/^- \*\*afpd reads\/op\*\*: 0 → [\d.]+ at /))
    expect(steps).toContainEqual(
      expect.stringMatching(/^- \*\*afpd system calls\/op\*\*: \+\d+ % at /)
    )
    // every step of afpd's is the afp.conf change
    for (const l of steps.filter((x) => x.startsWith('- **afpd'))) expect(l).toContain(named)
  })

  it('reads the history and never writes it', () => {
    expect(pr.log).toContain(
      'History not written: a pull_request run reads the history, never writes it.'
    )
    // the branch made by the first push, moved by the release and five pushes
    expect(refWrites(DATA)).toEqual([
      `POST /repos/${REPO}/git/refs`,
      ...Array<string>(6).fill(`PATCH /repos/${REPO}/git/refs/heads/${DATA}`)
    ])
  })

  it('a fork reads the history with its read-only token, and writes nothing at all', async () => {
    const before = api.writes().length
    const fork = await run('pull_request', 'pull_request_fork.json', inputs())
    expect(fork.status, fork.log).toBe(1)
    expect(fork.log).toMatch(/History: 7 of 7 run\(s\) of main read from branch 'afpbench-data'/)
    expect(fork.summary).toContain('**Trend** of `main`')
    expect(api.writes().slice(before)).toEqual([])
  })

  it('the push after the change named the step in its job summary', async () => {
    const next = await pushRun(8)
    expect(next.summary).toContain("### Steps in main's history")
    expect(next.summary).toContain(`commit/${commit(5)}`)
  })

  it('a regression on top of main still fails, naming only its own change', async () => {
    // the pull request's server: main's (ea = ad) with one lstat more per
    // reply (the test-only injector, preloaded)
    stopLocalServer(PORT)
    server = startLocalServer(
      PORT,
      PASSWORD,
      ['--afp-conf', path.join(workspace, 'ea-ad.conf'), '--preload', buildInjector(workspace)],
      { AFPBENCH_INJECT_LSTAT: '1' }
    )
    api.mainLine = [1, 2, 3, 4, 5, 6, 7, 8].map(commit)
    const worse = await run(
      'pull_request',
      prEvent(commit(8), 'cd'.repeat(20)),
      inputs({ 'results-dir': 'pr-worse' })
    )
    expect(worse.status, worse.log).toBe(1)
    const verdict = JSON.parse(
      readFileSync(path.join(workspace, 'pr-worse', 'verdict.json'), 'utf8')
    ) as { decided_by: string[]; reference: { commit: string; on_main: unknown[] } }
    expect(verdict.reference.commit).toBe(commit(8))
    // what fails is the stat calls the injector adds, never ea = ad's reads
    expect(verdict.decided_by.length).toBeGreaterThan(0)
    for (const m of verdict.decided_by) expect(m).toMatch(/afpd_sys_(stat|total)/)
    expect(verdict.reference.on_main.length).toBeGreaterThan(0)
    const lines = (api.comments.at(-1)?.body ?? '').split('\n')
    expect(lines[1]).toMatch(/^### ❌ afpbench: \*\*fail\*\* — .*stat/)
    expect(lines[3]).toMatch(/^\*\*Already on main\*\* since `c0de050`: afpd reads per AFP op/)
  })
})

describe('the data branch under load', () => {
  it('two writers racing both land; the one that lost builds on the new tip', async () => {
    const branch = 'race-data'
    const gh = rest()
    const rec = (i: number, key: string): HistoryRecord => ({
      ...parseRecord(
        JSON.stringify({
          schema: 'afpbench-history/1',
          commit: 'a'.repeat(40),
          date: '2026-11-01T00:00:00Z'
        }),
        'x'
      ),
      commit: i.toString(16).padStart(40, '0'),
      date: new Date(Date.UTC(2026, 10, 2, 0, i)).toISOString(),
      runId: i,
      key
    })
    // a lost race, made certain: another writer lands just before this move
    await appendRecord(gh, branch, rec(1, 'a'))
    api.raceOnce.add(branch)
    const w = await appendRecord(gh, branch, rec(2, 'a'), { sleep: () => Promise.resolve() })
    expect(w.attempts).toBe(2)
    expect(tipFiles(branch).filter((f) => f.startsWith('race/'))).toHaveLength(1)
    // and two matrix jobs writing at once, ten runs each
    const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms / 50))
    const results = await Promise.all(
      ['sqlite', 'dbd'].map(async (key) => {
        const attempts: number[] = []
        for (let i = 10; i < 20; i++)
          attempts.push((await appendRecord(gh, branch, rec(i, key), { sleep })).attempts)
        return attempts
      })
    )
    expect(tipFiles(branch).filter((f) => f.startsWith('runs/sqlite/'))).toHaveLength(10)
    expect(tipFiles(branch).filter((f) => f.startsWith('runs/dbd/'))).toHaveLength(10)
    expect(results.flat().some((a) => a > 1)).toBe(true)
  })

  it('500 runs: one small file each, the tip bounded, the store linear', async () => {
    const branch = 'big-data'
    const gh = rest()
    // a full-size record: lantest 1-12 with every system call family, from
    // the verdict scripts/compare writes for two of the test fixtures
    const fixtures = path.join(REPO_ROOT, 'scripts', 'tests', 'fixtures')
    const verdictFile = path.join(workspace, 'fixture-verdict.json')
    const compare = spawnSync(
      path.join(REPO_ROOT, 'scripts', 'compare'),
      [
        '--out',
        verdictFile,
        '--baseline',
        path.join(fixtures, 'lantest-sys-a.json'),
        path.join(fixtures, 'lantest-sys-b.json')
      ],
      { encoding: 'utf8' }
    )
    expect(compare.status, compare.stderr).toBe(0)
    const raw = readFileSync(verdictFile, 'utf8')
    const real = recordFromVerdict(
      parseVerdict(raw, verdictFile),
      (JSON.parse(raw) as { current: unknown }).current,
      {
        commit: SHA,
        date: '2026-01-01T00:00:00Z',
        runId: 1,
        key: '',
        release: ''
      }
    )
    expect(Object.keys(real.tests).length).toBeGreaterThan(100)
    const bytes: number[] = []
    const t0 = Date.now()
    for (let i = 0; i < 500; i++) {
      await appendRecord(gh, branch, {
        ...real,
        commit: (0xb16000 + i).toString(16).padStart(40, '0'),
        date: new Date(Date.UTC(2026, 0, 1) + i * 6 * 3600_000).toISOString(),
        runId: 1000 + i
      })
      if ((i + 1) % 100 === 0) bytes.push(api.gitBytes(branch).raw)
    }
    const seconds = (Date.now() - t0) / 1000
    const store = api.gitBytes(branch)
    const files = tipFiles(branch)
    const runs = files.filter((f) => f.startsWith('runs/'))
    const archives = files.filter((f) => f.startsWith('archive/'))
    const perRun = bytes.slice(1).map((b, i) => (b - bytes[i]) / 100)
    console.log(
      `500 runs: record ${Buffer.byteLength(JSON.stringify(real))} bytes; tip ${files.length} files (${runs.length} runs, ${archives.length} archives); ` +
        `git objects ${store.objects}, ${(store.raw / 1e6).toFixed(2)} MB raw, ${(store.compressed / 1e6).toFixed(2)} MB zlib; ` +
        `growth per run by hundreds: ${perRun.map((b) => `${(b / 1000).toFixed(1)} KB`).join(', ')}; ${seconds.toFixed(1)} s`
    )
    expect(runs.length).toBeLessThanOrEqual(KEEP_RUNS + COMPACT_BATCH)
    expect(runs.length).toBeGreaterThanOrEqual(KEEP_RUNS)
    expect(archives.length).toBe(Math.ceil((500 - KEEP_RUNS - COMPACT_BATCH) / (COMPACT_BATCH + 1)))
    // linear: the last hundred runs cost no more per run than the second
    expect(Math.max(...perRun)).toBeLessThan(perRun[0] * 1.5)
    // the newest runs read back whole
    const h = await readHistory(gh, branch, '', 30)
    expect(h.records.map((r) => r.runId)).toEqual(Array.from({ length: 30 }, (_, i) => 1470 + i))
    expect(runPath(h.records[0])).toMatch(/^runs\/default\/2026-/)
  })
})
