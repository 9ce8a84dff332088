// End to end: the opt-in bisect (input bisect, docs/bisect.md "In the
// action"). The committed dist/ bundle runs as GitHub runs it; the servers are
// REAL netatalk servers built from a REAL git repository: the 17 commits of
// scripts/tests/lib/bisect-repo.sh, made from the workspace's netatalk 4.4
// tree (c11 adds one stat() per FPGetFileDirParms, c8 does not build). The
// repository is the job's workspace, as in netatalk's own workflows, and
// scripts/bisect builds and measures each probe for real. GitHub's REST API
// is the local stand-in (fake-github.ts): the repository's graph on GitHub
// cannot exist here, so its main line is told to it. The story:
//
//   1. a push of c0 to main: measured, written to the history
//   2. a pull request of c1..c16 on top of it: it fails against main's run
//      at its merge-base, bisects its own commits and names c11 in its
//      comment, with c8 skipped
//   3. the pull request merged, a push of c16: its counts moved against
//      main's previous run, it bisects the push's commits, names c11 in the
//      job summary and comments on c11; the measurements the pull request's
//      bisect made are kept by tree, so only the A/A is measured again

import { spawnSync } from 'node:child_process'
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { FakeGitHubServer } from './fake-github.js'
import {
  e2ePort,
  netatalk44Tree,
  REPO_ROOT,
  requireE2ePrerequisites,
  runAction,
  startLocalServer,
  stopLocalServer,
  type ActionRun,
  type ServerSettings
} from './harness.js'

const PORT = e2ePort(6) // 10596
const PROBE_PORT = e2ePort(8) // 10598: scripts/bisect's server for each probe
const PASSWORD = 'b1sect88'
const TOKEN = 'ghs_bisectTokenThatMustNeverBePrinted'
const CACHE = process.env.AFPBENCH_CACHE || '/var/cache/afpbench'

// The 4.4 tree, or why there is none (the story is not run then, and says so)
const { tree: TREE, noTree: NO_TREE } = netatalk44Tree('bisect.e2e')

const api = new FakeGitHubServer()
const workspace = mkdtempSync(path.join(os.tmpdir(), 'afpbench-e2e-bisect-'))
const repo = path.join(workspace, 'netatalk') // the job's workspace: the netatalk checkout
const served = path.join(workspace, 'served') // the checkout the measured server is built from
let c: string[] = [] // the 17 commits, c[0] first
let server: ServerSettings | null = null

function git(dir: string, ...args: string[]): string {
  const r = spawnSync('git', ['-C', dir, ...args], { encoding: 'utf8' })
  if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`)
  return r.stdout.trim()
}

// The measured server, built from commit n of the repository (only what
// changed since the last start compiles).
function serve(n: number): void {
  if (server !== null) stopLocalServer(PORT)
  git(served, 'checkout', '-q', '--force', '--detach', c[n])
  server = startLocalServer(PORT, PASSWORD, ['--netatalk-source', served, '--incremental'])
}

function eventFile(name: string, edit: (e: Record<string, unknown>) => void): string {
  const e = JSON.parse(
    readFileSync(path.join(REPO_ROOT, 'src/action/fixtures/events', `${name}.json`), 'utf8')
  ) as Record<string, unknown>
  edit(e)
  const file = path.join(workspace, `${name}-${Math.random().toString(16).slice(2)}.json`)
  writeFileSync(file, JSON.stringify(e))
  return file
}

function run(
  eventName: string,
  file: string,
  sha: string,
  extra: Record<string, string> = {}
): Promise<ActionRun> {
  if (server === null) throw new Error('no server')
  return runAction({
    inputs: {
      server: `${server.host}:${server.port}`,
      'proc-io': server.procIo,
      'afp-user': server.user,
      'afp-password': server.password,
      volume: server.share,
      tests: '9',
      iterations: '2',
      'github-token': TOKEN,
      ...extra
    },
    eventName,
    eventFile: file,
    workspace: repo,
    apiUrl: api.url,
    jobToken: TOKEN,
    env: { GITHUB_SHA: sha, BISECT_PORT: String(PROBE_PORT) }
  })
}

function push(
  before: string,
  after: string,
  extra: Record<string, string> = {}
): Promise<ActionRun> {
  const file = eventFile('push', (e) => {
    e.before = before
    e.after = after
  })
  return run('push', file, after, extra)
}

interface BisectJson {
  status: string
  first_bad: string | null
  skipped: string[]
  probes: number
  seconds: number
  rows: Array<{ metric: string; good: number; bad: number; commands: Array<{ command: string }> }>
  log: Array<{ commit: string; state: string; cached: boolean; why?: string }>
}

function bisectJson(resultsDir: string): BisectJson {
  return JSON.parse(readFileSync(path.join(repo, resultsDir, 'bisect.json'), 'utf8')) as BisectJson
}

let first: ActionRun
let pr: ActionRun
let merged: ActionRun

describe.skipIf(NO_TREE !== '')('the opt-in bisect on a real repository', () => {
  beforeAll(async () => {
    requireE2ePrerequisites()
    const made = spawnSync(path.join(REPO_ROOT, 'scripts/tests/lib/bisect-repo.sh'), [TREE, repo], {
      encoding: 'utf8'
    })
    if (made.status !== 0) throw new Error(`bisect-repo.sh failed: ${made.stderr}`)
    c = made.stdout.trim().split('\n')
    git(workspace, 'clone', '-q', repo, served)
    // meson's subprojects are fetched into a checkout, never committed (git
    // ignores them): the served checkout gets the workspace's, as meson
    // would have downloaded them (no network here)
    cpSync(path.join(repo, 'subprojects'), path.join(served, 'subprojects'), { recursive: true })
    // the measurements scripts/bisect keeps by tree: this story's first
    // bisect must measure, not find them from an earlier run of the story
    rmSync(path.join(CACHE, 'bisect'), { recursive: true, force: true })
    await api.start()
    api.mainLine = [c[0]]
    serve(0)
    first = await push('0'.repeat(40), c[0], { 'fail-on': 'never' })
    serve(16)
    const prFile = eventFile('pull_request', (e) => {
      const p = e.pull_request as { base: { sha: string }; head: { sha: string } }
      p.base.sha = c[0]
      p.head.sha = c[16]
    })
    pr = await run('pull_request', prFile, c[16], { bisect: 'true', 'results-dir': 'pr-results' })
    api.mainLine = [...c]
    merged = await push(c[0], c[16], {
      bisect: 'true',
      'results-dir': 'push-results',
      'fail-on': 'never'
    })
    // the whole story: on a fresh machine two build trees are made from
    // nothing (the measured server's and the bisect's, a full meson build
    // each), beside other jobs: minutes, more than the config's 300 s
  }, 1_200_000)

  afterAll(async () => {
    await api.stop()
    if (server !== null) stopLocalServer(PORT)
  })

  it('main at c0 is measured and written to the history', () => {
    expect(first.status, first.log).toBe(0)
    expect(first.log).toContain("History: this run written to branch 'afpbench-data'")
  })

  it('the pull request fails against main at its merge-base, and its comment names c11, with c8 skipped', () => {
    expect(pr.status, pr.log).toBe(1)
    const b = bisectJson('pr-results')
    expect(b.status).toBe('found')
    expect(b.first_bad).toBe(c[11])
    expect(b.skipped).toEqual([c[8]])
    // good, bad and ceil(log2 16) = 4 at most between them; the skip apart
    expect(b.probes).toBeLessThanOrEqual(6)
    expect(b.log.find((l) => l.state === 'skip')?.why).toMatch(/^does not build/)
    // this bisect measured: its ends and its probes were not kept from before
    expect(b.log.filter((l) => l.state !== 'skip' && !l.cached).length).toBeGreaterThanOrEqual(4)
    const stat = b.rows.find((r) => r.metric === 'lantest.9.afpd_sys_stat')
    expect(stat && stat.bad > stat.good).toBe(true)
    expect(stat?.commands[0]?.command).toBe('FPGetFileDirParms')
    expect(pr.outputs['bisect-commit']).toBe(c[11])

    const comment = api.comments.at(-1)?.body ?? ''
    const lines = comment.split('\n')
    const head = lines.findIndex((l) => l.startsWith('### ❌ afpbench: **fail**'))
    expect(head, comment).toBeGreaterThanOrEqual(0)
    // the answer is right under the headline
    expect(lines[head + 2]).toMatch(
      new RegExp(
        `^\\*\\*First bad commit\\*\\* \\[\`${c[11].slice(0, 12)}\`\\]\\(https://github.com/octo-org/afp-server/commit/${c[11]}\\) filedir: look at the working directory`
      )
    )
    expect(comment).toContain('FPGetFileDirParms: newfstatat')
    expect(comment).toContain('- test 9 afpd stat calls: 42,900 → 53,900 (+25.6 %)')
    expect(comment).toMatch(
      new RegExp(`skipped: \\[\`${c[8].slice(0, 12)}\`\\]\\([^)]*\\) does not build$`, 'm')
    )
    // in the job summary once, with the report
    expect(pr.summary.split('**First bad commit**')).toHaveLength(2)
    // the password only in the mask command, which the runner turns into ***
    const shown = [
      comment,
      pr.summary,
      ...pr.log.split('\n').filter((l) => !l.startsWith('::add-mask::'))
    ]
    expect(shown.join('\n')).not.toContain(PASSWORD)
    console.log(
      `# the pull request's bisect of 16 commits: ${b.probes} probes, ${b.skipped.length} skipped, ${b.seconds} s`
    )
  })

  it("the push of c16 bisects the commits since main's previous run, names c11 in the job summary and comments on it", () => {
    expect(merged.status, merged.log).toBe(0)
    const b = bisectJson('push-results')
    expect(b.first_bad).toBe(c[11])
    expect(merged.outputs['bisect-commit']).toBe(c[11])
    expect(merged.summary).toMatch(
      new RegExp(`\\*\\*First bad commit\\*\\* \\[\`${c[11].slice(0, 12)}\`\\]`)
    )
    expect(api.commitComments.map((x) => x.sha)).toEqual([c[11]])
    expect(api.commitComments[0].body).toContain('### afpbench bisect')
    expect(merged.summary).toContain('Posted on the commit')
    // the pull request's measurements, kept by tree: every probe but the A/A
    expect(b.log.filter((l) => l.state !== 'skip').every((l) => l.cached)).toBe(true)
    console.log(
      `# the push's bisect of the same 16 commits, from kept measurements: ${b.seconds} s`
    )
  })
})
