// End to end: the default branch's history (docs/history.md). The committed
// dist/ bundle runs as GitHub runs it against a REAL netatalk server
// (scripts/local-server), every run measured; GitHub's REST API is the local
// stand-in (fake-github.ts), which keeps git objects and branches as GitHub
// would and counts what git would store for them. The story:
//
//   1. a push to main with no data branch yet makes it (the first run, A)
//   2. main takes an intended step through a pull request (B: afp.conf gains
//      ea = ad): its push exits 0 and names its step (issue 44)
//   3. pull requests on a history of two runs: one equal to B passes, "already
//      on main since B"; one that takes the step back fails against main, its
//      "Differs:" naming only that, and its reproduce command, run as printed,
//      gives the same fail; a setting against the stored baseline alone too
//   4. README-only pushes exit 0; on four runs a pull request equal to main
//      passes and a regression on top fails, naming only its own calls
//   5. the comment's refresh command, run as printed, makes a baseline the
//      next push passes against; a step pushed with no pull request fails once
//   6. every comment fits its height; a release in mode: baseline pools two
//      sessions, kept apart; a pull request after it shows the trend, the
//      step named once; a fork reads and writes nothing
//
// Every push and the release also publish the history page (pages-branch):
// the comment and the summary link to it, and it holds every run.
//
// And through the real REST adapter: two writers racing both land; 500 runs
// cost what they cost (printed), linearly, with the tip bounded.

import { spawn, spawnSync } from 'node:child_process'
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  writeFileSync
} from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { octokitApi } from '../github-api.js'
import { makeRecord, parseRecord, type HistoryRecord } from '../history-record.js'
import { appendRecord, COMPACT_BATCH, KEEP_RUNS, readHistory, runPath } from '../history-store.js'
import { decodeChunk, readKeyData } from '../../history-page/page-data.js'
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
// where a reproduce or refresh command, run as printed, serves the plan's server
const REPLAY_PORT = e2ePort(0) // 10590 (backfill.e2e has 10597)
const PASSWORD = 'h1story8'
const TOKEN = 'ghs_historyTokenThatMustNeverBePrinted'
const DATA = 'afpbench-data'
const PAGES = 'afpbench-pages' // the history page (docs/history-page.md)
const PAGE_URL = 'https://octo-org.github.io/afp-server/'
const REPO = 'octo-org/afp-server'
const SHA = '1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b' // the harness's GITHUB_SHA

let server: ServerSettings
let push: ActionRun
const api = new FakeGitHubServer()
const workspace = mkdtempSync(path.join(os.tmpdir(), 'afpbench-e2e-history-'))
const EA_AD = path.join(workspace, 'ea-ad.conf')

function inputs(extra: Record<string, string> = {}): Record<string, string> {
  return {
    server: `${server.host}:${server.port}`,
    'proc-io': server.procIo,
    'afp-user': server.user,
    'afp-password': server.password,
    volume: server.share,
    tests: '9', // FPGetFileDirParms: where ea = ad and the injected lstat show
    iterations: '1',
    'github-token': TOKEN,
    'pages-branch': PAGES,
    // the stand-in is the server URL, not github.com: no address to derive
    'pages-url': PAGE_URL,
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
    // the stand-in is github.com too: the comment's plan URL is fetched from it
    env: { GITHUB_SERVER_URL: api.url, ...env }
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

function pushRun(n: number, extra: Record<string, string> = {}): Promise<ActionRun> {
  return run('push', 'push.json', inputs(extra), { GITHUB_SHA: commit(n) })
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
    expect(Object.keys(r.tests).some((k) => k.startsWith('lantest.9.afpd_'))).toBe(true)
    expect(r.provenance.netatalk).toMatch(/^\d+\.\d+/)
    // the password is nowhere in what was written
    for (const b of api.blobs.values())
      expect(Buffer.from(b, 'base64').toString()).not.toContain(PASSWORD)
  })
})

// The reproduce command of a comment, as printed: the fenced shell block's
// line that runs without Docker (the place, the port run-gate serves on, is
// the environment's; the plan is the URL the comment names).
function reproduceLine(body: string): string {
  const line = body.split('\n').find((l) => l.startsWith('scripts/run-gate --native --plan '))
  if (line === undefined) throw new Error(`no reproduce command in the comment:\n${body}`)
  return line
}

// Run a command line from a comment, as a person pastes it into a shell in a
// checkout of afpbench-action (the place: the port run-gate serves on, the
// results directory). Not spawnSync: the stand-in API answers the plan's URL
// from this process.
function runPrinted(
  line: string,
  cwd: string,
  env: Record<string, string> = {}
): Promise<{ status: number; out: string }> {
  return new Promise((resolve) => {
    const child = spawn('bash', ['-c', line], {
      cwd,
      env: {
        ...process.env,
        AFPBENCH_NATIVE_PORT: String(REPLAY_PORT),
        LOCAL_SERVER_TMPFS: '1',
        ...env
      },
      stdio: ['ignore', 'pipe', 'pipe']
    })
    let out = ''
    child.stdout.on('data', (d: Buffer) => (out += d.toString()))
    child.stderr.on('data', (d: Buffer) => (out += d.toString()))
    child.on('close', (code) => resolve({ status: code ?? -1, out }))
  })
}

// A pull request's comment and results kept for the heights (rendered at the
// end as GitHub shows them) and, with AFPBENCH_CAPTURE_FIXTURES=1, as the
// render fixtures of report_render.bats (fixtures/runs/NAME: results.json and
// the reference, trend and baseline the plan carried).
const rendered: string[] = []
function keep(name: string, resultsDir: string): void {
  const dir = path.join(workspace, 'render', name)
  mkdirSync(path.join(dir, 'charts'), { recursive: true })
  for (const f of ['report.md', 'verdict.json'])
    copyFileSync(path.join(resultsDir, f), path.join(dir, f))
  for (const f of readdirSync(path.join(resultsDir, 'charts')).filter((n) => n.endsWith('.png')))
    copyFileSync(path.join(resultsDir, 'charts', f), path.join(dir, 'charts', f))
  rendered.push(dir)
  if (process.env.AFPBENCH_CAPTURE_FIXTURES !== '1') return
  const fixture = path.join(REPO_ROOT, 'scripts', 'tests', 'fixtures', 'runs', name)
  mkdirSync(fixture, { recursive: true })
  copyFileSync(path.join(resultsDir, 'results.json'), path.join(fixture, 'results.json'))
  const plan = JSON.parse(readFileSync(path.join(resultsDir, 'plan.json'), 'utf8')) as {
    files: Record<string, { content: unknown } | null>
  }
  // the bundled baseline is report_render.bats's default: not copied
  const bundled = JSON.stringify(
    JSON.parse(readFileSync(path.join(REPO_ROOT, 'baselines', 'default.json'), 'utf8'))
  )
  for (const f of ['reference', 'trend', 'baseline']) {
    const carried = plan.files[f]
    if (carried && !(f === 'baseline' && JSON.stringify(carried.content) === bundled))
      writeFileSync(path.join(fixture, `${f}.json`), `${JSON.stringify(carried.content)}\n`)
  }
}

// The comment's heading line and the lines under it.
function comment(): string[] {
  return (api.comments.at(-1)?.body ?? '').split('\n')
}

describe("main's own day: an intended step through a pull request, and the pushes after it", () => {
  let step: ActionRun
  let equal4 = '' // the comment of the pull request equal to main on four runs
  beforeAll(async () => {
    // main takes an intended step: afp.conf gains ea = ad (extended attributes
    // in AppleDouble files: more afpd IO), through pull request #2
    stopLocalServer(PORT)
    writeFileSync(EA_AD, '[Global]\n[File Sharing]\nea = ad\n')
    server = startLocalServer(PORT, PASSWORD, ['--afp-conf', EA_AD])
    api.mainLine = [1, 2].map(commit)
    api.mergedPulls.set(commit(2), [2])
    step = await pushRun(2, { 'afp-conf': EA_AD })
  }, 300_000)

  it('the push at the step exits 0 and names its step, as its pull request showed it', async () => {
    expect(step.status, step.log).toBe(0)
    keep('push-step', path.join(workspace, 'afpbench-results'))
    expect(step.outputs.verdict).toBe('pass')
    expect(step.log).toContain(
      `Counts reference: the previous run of main, at ${commit(1).slice(0, 7)} (the parent); ${commit(2).slice(0, 7)} came with pull request #2`
    )
    expect(step.summary).toMatch(
      /### ✅ afpbench: \*\*pass\*\* — a step at this commit \(pull request #2\): /
    )
    // its job summary names the step once, by its commit
    const named = `[${commit(2).slice(0, 7)}](${api.url}/${REPO}/commit/${commit(2)})`
    const steps = step.summary.split('\n').filter((l) => l.startsWith('- **'))
    expect(steps.filter((l) => l.includes(named))).toHaveLength(1)
    expect((await readHistory(rest(), DATA, '', 30)).records).toHaveLength(2)
    // and it links the history page, made again with this run
    expect(step.summary).toContain(
      `**History**: every count row of main across its 2 runs, and its`
    )
    expect(step.summary).toContain(`on [the history page](${PAGE_URL}).`)
  })

  it('a pull request equal to main at the step passes: already on main since the step, on a history of two runs', async () => {
    const pr = await run(
      'pull_request',
      prEvent(commit(2), 'ab'.repeat(20)),
      inputs({ 'results-dir': 'pr-equal-2', 'afp-conf': EA_AD })
    )
    expect(pr.status, pr.log).toBe(0)
    const lines = comment()
    expect(lines[1]).toMatch(/^### ✅ afpbench: \*\*pass\*\* — /)
    expect(lines[3]).toMatch(
      new RegExp(`^\\*\\*Already on main\\*\\* since \`${commit(2).slice(0, 7)}\`: `)
    )
    // nothing this change brings differs from main's run
    expect(lines.filter((l) => l.startsWith('**Differs:**'))).toEqual([])
    // the trend chart folded: this change moved nothing
    expect(api.comments.at(-1)?.body).toContain('<summary>Trend chart</summary>')
    keep('pass-history-2', path.join(workspace, 'pr-equal-2'))
  })

  it('a pull request that takes the step back fails against main, and "Differs:" names only that', async () => {
    stopLocalServer(PORT)
    server = startLocalServer(PORT, PASSWORD)
    const pr = await run(
      'pull_request',
      prEvent(commit(2), 'ba'.repeat(20)),
      inputs({ 'results-dir': 'pr-back-2' })
    )
    expect(pr.status, pr.log).toBe(1)
    const body = api.comments.at(-1)?.body ?? ''
    const differs = body.split('\n').filter((l) => l.startsWith('**Differs:**'))
    expect(differs).toEqual([
      `**Differs:** main at \`${commit(2).slice(0, 7)}\` serves \`ea = ad\`; this run does not.`
    ])
    keep('fail-history-2', path.join(workspace, 'pr-back-2'))
    // its reproduce command, run as printed, gives its verdict: the plan
    // serves its server (no ea = ad) and judges it against main's run it carries
    const replay = await runPrinted(reproduceLine(body), REPO_ROOT, {
      AFPBENCH_RESULTS: path.join(workspace, 'replay-main')
    })
    expect(replay.status, replay.out).toBe(1)
    const again = JSON.parse(
      readFileSync(path.join(workspace, 'replay-main', 'verdict.json'), 'utf8')
    ) as { decided_by: string[]; reference: { commit: string } }
    const first = JSON.parse(
      readFileSync(path.join(workspace, 'pr-back-2', 'verdict.json'), 'utf8')
    ) as { decided_by: string[] }
    expect(again.reference.commit).toBe(commit(2))
    expect([...again.decided_by].sort()).toEqual([...first.decided_by].sort())
    stopLocalServer(PORT)
    server = startLocalServer(PORT, PASSWORD, ['--afp-conf', EA_AD])
  }, 900_000)

  it('a setting against the stored baseline alone fails, and its reproduce command gives that fail', async () => {
    const pr = await run(
      'pull_request',
      prEvent(commit(2), 'ca'.repeat(20)),
      inputs({ 'results-dir': 'pr-stored', 'afp-conf': EA_AD, 'history-branch': '' })
    )
    expect(pr.status, pr.log).toBe(1)
    const body = api.comments.at(-1)?.body ?? ''
    expect(body).toContain('**Differs:** this run serves `ea = ad`; the baseline does not')
    const replay = await runPrinted(reproduceLine(body), REPO_ROOT, {
      AFPBENCH_RESULTS: path.join(workspace, 'replay-stored')
    })
    expect(replay.status, replay.out).toBe(1)
    expect(replay.out).toContain("serving the plan's server on port")
    expect(replay.out).toContain('afp.conf: ea = ad')
  }, 900_000)

  it('README-only pushes after the step exit 0: judged against the run before them', async () => {
    api.mainLine = [1, 2, 3, 4].map(commit)
    api.mergedPulls.set(commit(3), [3])
    for (const n of [3, 4]) {
      const r = await pushRun(n, { 'afp-conf': EA_AD })
      expect(r.status, r.log).toBe(0)
      expect(r.outputs.verdict).toBe('pass')
      // the stored baseline trails main: a note with a command that works, never red
      expect(r.summary).toContain('the stored baseline trails main')
    }
    expect((await readHistory(rest(), DATA, '', 30)).records).toHaveLength(4)
  }, 900_000)

  it('on a history of four runs: a pull request equal to main passes, a regression on top fails naming only its own calls', async () => {
    const equal = await run(
      'pull_request',
      prEvent(commit(4), 'ad'.repeat(20)),
      inputs({ 'results-dir': 'pr-equal-4', 'afp-conf': EA_AD })
    )
    expect(equal.status, equal.log).toBe(0)
    expect(comment()[3]).toMatch(
      new RegExp(`^\\*\\*Already on main\\*\\* since \`${commit(2).slice(0, 7)}\`: `)
    )
    keep('pass-history-4', path.join(workspace, 'pr-equal-4'))
    equal4 = api.comments.at(-1)?.body ?? ''
    // main's server with one lstat more per reply (the test-only injector)
    stopLocalServer(PORT)
    server = startLocalServer(
      PORT,
      PASSWORD,
      ['--afp-conf', EA_AD, '--preload', buildInjector(workspace)],
      { AFPBENCH_INJECT_LSTAT: '1' }
    )
    const worse = await run(
      'pull_request',
      prEvent(commit(4), 'cd'.repeat(20)),
      inputs({ 'results-dir': 'pr-worse-4', 'afp-conf': EA_AD })
    )
    expect(worse.status, worse.log).toBe(1)
    const verdict = JSON.parse(
      readFileSync(path.join(workspace, 'pr-worse-4', 'verdict.json'), 'utf8')
    ) as { decided_by: string[]; reference: { commit: string; on_main: unknown[] } }
    expect(verdict.reference.commit).toBe(commit(4))
    // what fails is the stat calls the injector adds, never ea = ad's reads
    expect(verdict.decided_by.length).toBeGreaterThan(0)
    for (const m of verdict.decided_by) expect(m).toMatch(/afpd_sys_(stat|total)/)
    const lines = comment()
    expect(lines[1]).toMatch(/^### ❌ afpbench: \*\*fail\*\* — .*stat/)
    expect(lines[3]).toMatch(/^\*\*Already on main\*\* since `c0de020`: /)
    // main's ea = ad is not this change's difference
    expect(lines.filter((l) => l.startsWith('**Differs:**'))).toEqual([])
    keep('fail-history-4', path.join(workspace, 'pr-worse-4'))
    stopLocalServer(PORT)
    server = startLocalServer(PORT, PASSWORD, ['--afp-conf', EA_AD])
  }, 900_000)

  it('the refresh command, run as printed, makes a baseline against which the next push passes with no note', async () => {
    // the comment's words: "refresh it with `scripts/run-gate --make-baseline … --plan URL`"
    const refresh = /`(scripts\/run-gate --make-baseline \S+ --plan '[^']+')`/.exec(equal4)
    expect(refresh, 'a refresh command in the comment').not.toBeNull()
    // run from the repository's root, as the comment says: the baseline lands
    // at .github/afpbench/baseline.json there
    const made = await runPrinted(
      `${path.join(REPO_ROOT, 'scripts', 'run-gate')}${(refresh as RegExpExecArray)[1].slice('scripts/run-gate'.length)}`,
      workspace,
      { AFPBENCH_RESULTS: path.join(workspace, 'refresh-results') }
    )
    expect(made.status, made.out).toBe(0)
    expect(made.out).toContain('Baseline written:')
    api.mainLine = [1, 2, 3, 4, 5].map(commit)
    api.mergedPulls.set(commit(5), [5])
    const next = await pushRun(5, {
      'afp-conf': EA_AD,
      baseline: '.github/afpbench/baseline.json'
    })
    expect(next.status, next.log).toBe(0)
    expect(next.outputs.verdict).toBe('pass')
    expect(next.summary).not.toContain('the stored baseline trails main')
    // and on its own, with no history, the counts pass against it too
    const alone = await run(
      'pull_request',
      prEvent(commit(5), 'ee'.repeat(20)),
      inputs({
        'results-dir': 'pr-refreshed',
        'afp-conf': EA_AD,
        'history-branch': '',
        baseline: '.github/afpbench/baseline.json'
      })
    )
    expect(alone.status, alone.log).toBe(0)
  }, 1_200_000)

  it('a step pushed with no pull request fails once, at its push; the push after it passes', async () => {
    stopLocalServer(PORT)
    server = startLocalServer(
      PORT,
      PASSWORD,
      ['--afp-conf', EA_AD, '--preload', buildInjector(workspace)],
      { AFPBENCH_INJECT_LSTAT: '1' }
    )
    api.mainLine = [1, 2, 3, 4, 5, 6, 7].map(commit)
    const direct = await pushRun(6, {
      'afp-conf': EA_AD,
      baseline: '.github/afpbench/baseline.json'
    })
    expect(direct.status, direct.log).toBe(1)
    expect(direct.summary).toMatch(/### ❌ afpbench: \*\*fail\*\* — /)
    const v = JSON.parse(
      readFileSync(path.join(workspace, 'afpbench-results', 'verdict.json'), 'utf8')
    ) as { rows: Array<{ state: string; reason: string }> }
    expect(
      v.rows.some((r) => r.reason.startsWith('a step at this commit that no pull request showed'))
    ).toBe(true)
    const after = await pushRun(7, {
      'afp-conf': EA_AD,
      baseline: '.github/afpbench/baseline.json'
    })
    expect(after.status, after.log).toBe(0)
    stopLocalServer(PORT)
    server = startLocalServer(PORT, PASSWORD, ['--afp-conf', EA_AD])
  }, 900_000)

  it('every comment of the story fits its height, folded, at 780 px', () => {
    const out = path.join(workspace, 'rendered')
    const r = spawnSync(
      process.execPath,
      [path.join(REPO_ROOT, 'scripts', 'tests', 'render', 'render.mjs'), '--out', out, ...rendered],
      { encoding: 'utf8', timeout: 300_000 }
    )
    expect(r.status, `${r.stdout}${r.stderr}`).toBe(0)
    const measures = JSON.parse(readFileSync(path.join(out, 'measures.json'), 'utf8')) as Array<{
      name: string
      status: string
      heightFolded: number
    }>
    expect(measures).toHaveLength(5)
    for (const m of measures) {
      console.log(`# ${m.name}: ${m.status}, ${m.heightFolded} px folded`)
      expect(m.heightFolded, m.name).toBeLessThanOrEqual(m.status === 'pass' ? 1000 : 1800)
    }
  }, 300_000)
})

describe('a release, in mode: baseline', () => {
  let rel: ActionRun
  beforeAll(async () => {
    rel = await run(
      'release',
      'release.json',
      inputs({
        mode: 'baseline',
        baseline: 'baseline.json',
        'results-dir': 'release-results',
        'afp-conf': EA_AD
      }),
      { GITHUB_SHA: commit(7) }
    )
  }, 600_000)

  it('pools two sessions (the default) into the baseline', () => {
    expect(rel.status, rel.log).toBe(0)
    expect(rel.log).toContain('Session 1 of 2')
    expect(rel.log).toContain('Session 2 of 2')
    const baseline = JSON.parse(readFileSync(path.join(workspace, 'baseline.json'), 'utf8')) as {
      tests: Array<{ key: string; samples: Array<{ run?: number }> }>
    }
    const t9 = baseline.tests.find((t) => t.key === 'lantest.9')
    // one iteration from each session, each sample with its session's run number
    expect(t9?.samples).toHaveLength(2)
    expect(new Set(t9?.samples.map((s) => s.run)).size).toBe(2)
  })

  it("keeps the release's figures under releases/, beside its run", async () => {
    expect(
      tipFiles(DATA).filter((f) => f.startsWith('releases/default/') && f.endsWith('-v4.3.0.json'))
    ).toHaveLength(1)
    const h = await readHistory(rest(), DATA, '', 30)
    expect(h.release?.release).toBe('v4.3.0')
    expect(h.release?.commit).toBe(commit(7))
  })
})

describe('a pull request after the release', () => {
  let pr: ActionRun
  beforeAll(async () => {
    api.mainLine = [1, 2, 3, 4, 5, 6, 7].map(commit)
    // its own results directory: docs/img/trend.png is its chart
    pr = await run(
      'pull_request',
      prEvent(commit(7), 'ab'.repeat(20)),
      inputs({ 'results-dir': 'pr-results', 'afp-conf': EA_AD })
    )
  }, 600_000)

  it("shows main's trend, its chart committed beside the others, folded on a pass", () => {
    expect(pr.status, pr.log).toBe(0)
    const body = api.comments.at(-1)?.body ?? ''
    expect(body).toMatch(/\*\*Trend\*\* of `main`: its last \d+ runs, this run marked/)
    expect(body).toMatch(
      /!\[trend\]\(http:\/\/127\.0\.0\.1:\d+\/octo-org\/afp-server\/blob\/c\w+\/charts\/trend.png\?raw=true\)/
    )
    expect(body).toContain('<summary>Trend chart</summary>')
    expect(tipFiles('afpbench-assets')).toContain('charts/trend.png')
  })

  it('names the step main took once, by its commit, and compares with the last release', () => {
    const body = api.comments.at(-1)?.body ?? ''
    expect(body).toMatch(
      /Since the last release \(v4\.3\.0\): afpd reads\/op ±0\u00a0%, afpd writes\/op ±0\u00a0%, afpd system calls\/op ±0\u00a0%\./
    )
    const at = commit(2)
    const named = `[${at.slice(0, 7)}](${api.url}/${REPO}/commit/${at})`
    const steps = body.split('\n').filter((l) => l.startsWith('- **'))
    const atStep = steps.filter((l) => l.includes(named))
    expect(atStep).toHaveLength(1)
    expect(atStep[0]).toMatch(/afpd reads\/op 0 → [\d.]+/)
  })

  it('the comment links the history page, which every push and the release made again with its run', () => {
    const body = api.comments.at(-1)?.body ?? ''
    expect(body).toMatch(
      new RegExp(
        `\\n\\*\\*Trend\\*\\* of \`main\`: its last \\d+ runs, this run marked; every run and step on \\[the history page\\]\\(${PAGE_URL.replace(/[.]/g, '\\.')}\\)\\n`
      )
    )
    const files = tipFiles(PAGES)
    for (const f of ['index.html', 'app.js', 'app.css', 'data/index.json', 'data/default/key.json'])
      expect(files).toContain(f)
    const text = (p: string): string => {
      const tree = api.trees.get(api.commits.get(api.branches.get(PAGES) ?? '')?.tree ?? '') ?? []
      const sha = tree.find((f) => f.path === p)?.sha ?? ''
      return Buffer.from(api.blobs.get(sha) ?? '', 'base64').toString()
    }
    const key = readKeyData(
      text('data/default/key.json'),
      text('data/default/rows.json'),
      'key.json'
    )
    // the seven pushes and the release: every run of the history
    expect(key.runs).toBe(8)
    const runs = decodeChunk(text('data/default/c0000.json'), 'c0000.json', 8).runs
    expect(runs.map((r) => r.commit)).toEqual([1, 2, 3, 4, 5, 6, 7, 7].map(commit))
    expect(runs.map((r) => r.release)).toEqual(['', '', '', '', '', '', '', 'v4.3.0'])
    // ea = ad: afpd's reads left 0 at main's second run, the step's commit
    const step = key.steps.find((st) => st.metric === 'aggregate.afpd_r_per_op')
    expect(runs[step?.at ?? -1]?.commit).toBe(commit(2))
    // the pull request published nothing
    expect(pr.log).toContain(
      'History page not published: a pull_request run reads the history, never writes it.'
    )
  })

  it('reads the history and never writes it', () => {
    expect(pr.log).toContain(
      'History not written: a pull_request run reads the history, never writes it.'
    )
    // the branch made by the first push, moved by six pushes and the release
    expect(refWrites(DATA)).toEqual([
      `POST /repos/${REPO}/git/refs`,
      ...Array<string>(7).fill(`PATCH /repos/${REPO}/git/refs/heads/${DATA}`)
    ])
  })

  it('a fork reads the history with its read-only token, and writes nothing at all', async () => {
    const before = api.writes().length
    const fork = await run('pull_request', 'pull_request_fork.json', inputs())
    expect(fork.log).toMatch(/History: 8 of 8 run\(s\) of main read from branch 'afpbench-data'/)
    expect(fork.summary).toContain('**Trend** of `main`')
    expect(api.writes().slice(before)).toEqual([])
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
    const real = makeRecord(verdictFile, {
      commit: SHA,
      date: '2026-01-01T00:00:00Z',
      runId: 1,
      key: '',
      release: ''
    })
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
