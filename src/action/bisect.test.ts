// The opt-in bisect's decisions, its reading of scripts/bisect's result and
// the lines it shows. scripts/bisect itself needs root and real servers: it
// runs for real in scripts/tests/bisect.bats and src/action/e2e/bisect.e2e.test.ts;
// here a recording runner stands in for it and writes a result that a real
// bisect wrote (fixtures/bisect/).

import { spawnSync } from 'node:child_process'
import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import {
  bisectAfterRun,
  bisectSection,
  checkoutProblem,
  followableRows,
  planForPullRequest,
  planForPush,
  readBisect,
  withBisect,
  type BisectContext,
  type Followable
} from './bisect.js'
import type { EventInfo } from './event.js'
import type { HistoryRecord } from './history-record.js'
import { InputError } from './input-error.js'
import { parseBisect } from './inputs.js'
import type { Runner } from './runner.js'
import { testEvent } from './testing/event.js'
import type { Verdict, VerdictRow } from './verdict.js'

const FIXTURES = path.join(import.meta.dirname, 'fixtures', 'bisect')
const REPO_ROOT = path.join(import.meta.dirname, '..', '..')
const GOOD = '11384f16a79eebb0430025c805da5545dce09651'
const BAD = 'b1a3a0f8e4e3ac8316d0b27e2f57b3c16a2ace9c'
const FIRST_BAD = 'dd29c4ffe1e2be730ecd0cde1907fdc1939aec96'
const log = { info: () => {}, warning: () => {} }

function row(metric: string, current: number, over: Partial<VerdictRow> = {}): VerdictRow {
  return {
    metric,
    ratio: 1,
    state: 'pass',
    group: metric.split('.')[0],
    kind: 'sys',
    unit: 'syscalls',
    current,
    floor: 1,
    ...over
  }
}

function verdict(status: Verdict['status'], rows: VerdictRow[]): Verdict {
  return { status, summary: '', headline: '', icon: '', decidedBy: '', errors: [], rows }
}

// verdict.json as scripts/compare writes it, for the scripts that read it
function verdictFile(v: Verdict): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'afpbench-bisect-verdict-'))
  const file = path.join(dir, 'verdict.json')
  writeFileSync(file, JSON.stringify(v))
  return file
}

// what scripts/bisect says it can follow in the verdict (--rows-of)
function follow(v: Verdict): Followable {
  return followableRows(REPO_ROOT, verdictFile(v))
}

function event(over: Partial<EventInfo> = {}): EventInfo {
  return testEvent({ headSha: BAD, ...over })
}

function previous(tests: Record<string, number>, commit = GOOD): HistoryRecord {
  return {
    schema: 'afpbench-history/1',
    commit,
    date: '2026-11-01T00:00:00Z',
    runId: 1,
    key: '',
    release: '',
    provenance: { netatalk: '', build: '', afpConf: '', runner: '', suite: '' },
    aggregates: {},
    tests
  }
}

describe('planForPush', () => {
  it('bisects from the previous run of main when a count row moved, on the tests of the rows that moved', () => {
    const v = verdict('pass', [
      row('lantest.9.afpd_sys_stat', 53900),
      row('lantest.4.afpd_sys_stat', 100),
      row('lantest.12.afpd_w', 30100, { kind: 'io' })
    ])
    const d = planForPush(
      event(),
      follow(v),
      previous({
        'lantest.9.afpd_sys_stat': 42900,
        'lantest.4.afpd_sys_stat': 100,
        'lantest.12.afpd_w': 30100
      })
    )
    expect(d.plan).toEqual({
      good: GOOD,
      bad: BAD,
      tests: '9',
      why: expect.stringContaining('lantest.9.afpd_sys_stat') as string
    })
  })

  it('does not bisect the tail call, a timing, or a push without an earlier run', () => {
    const v = verdict('pass', [
      row('lantest.9.afpd_sys_stat', 42902),
      row('lantest.9.time', 900, { kind: 'time' }),
      row('lantest.9.afpd_sys_wait', 900, { kind: 'sys_info' })
    ])
    const prev = previous({
      'lantest.9.afpd_sys_stat': 42900,
      'lantest.9.time': 100,
      'lantest.9.afpd_sys_wait': 1
    })
    const d = planForPush(event(), follow(v), prev)
    expect(d.plan).toBeNull()
    expect(d.plan === null && d.why).toContain('no count row moved')
    // the tolerance is scripts/bisect's own: one call more than it is a move
    const f = follow(verdict('pass', [row('lantest.4.afpd_sys_stat', 103)]))
    expect(f.tolerance).toBe(2)
    expect(planForPush(event(), f, previous({ 'lantest.4.afpd_sys_stat': 100 })).plan?.tests).toBe(
      '4'
    )
    const first = planForPush(event(), follow(v), null)
    expect(first.plan === null && first.why).toContain('no earlier run')
    const same = planForPush(event(), follow(v), previous({}, BAD))
    expect(same.plan === null && same.why).toContain('same commit')
  })
})

describe('planForPullRequest', () => {
  const pr = event({ name: 'pull_request', pullRequest: 7, baseSha: GOOD })

  it('bisects merge-base..head when the pull request fails on count rows', () => {
    const v = verdict('fail', [
      row('lantest.12.afpd_sys_stat', 5, { state: 'fail' }),
      row('lantest.9.afpd_sys_total', 5, { state: 'fail' }),
      row('aggregate.afpd_sys_total_per_op', 5, { state: 'fail', group: 'aggregate' }),
      row('lantest.3.time', 5, { state: 'fail', kind: 'time' })
    ])
    const d = planForPullRequest(pr, v, follow(v), GOOD)
    expect(d.plan).toMatchObject({ good: GOOD, bad: BAD, tests: '9,12' })
  })

  it('refuses a fail on timings alone, with the reason, and a pass', () => {
    const v = verdict('fail', [row('lantest.3.time', 5, { state: 'fail', kind: 'time' })])
    const d = planForPullRequest(pr, v, follow(v), GOOD)
    expect(d.plan).toBeNull()
    expect(d.plan === null && d.why).toMatch(/fails on time only: .*not exact/)
    const pass = planForPullRequest(pr, verdict('pass', []), follow(verdict('pass', [])), GOOD)
    expect(pass.plan === null && pass.why).toContain('not fail')
    const failing = verdict('fail', [row('lantest.9.afpd_sys_stat', 1, { state: 'fail' })])
    const none = planForPullRequest(pr, failing, follow(failing), BAD)
    expect(none.plan === null && none.why).toContain('no commits of its own')
  })
})

describe('readBisect and the section bisect-report.jq writes', () => {
  const url = (sha: string): string => `https://github.com/o/r/commit/${sha}`
  const section = (file: string): string => bisectSection(REPO_ROOT, file, url)

  it('shows a real bisect: the commit, its rows, the command and call, the skipped commit', () => {
    const file = path.join(FIXTURES, 'found.json')
    const r = readBisect(file)
    expect(r.status).toBe('found')
    expect(r.firstBad).toBe(FIRST_BAD)
    const md = section(file)
    const lines = md.trimEnd().split('\n')
    expect(lines[0]).toMatch(
      new RegExp(
        `^\\*\\*First bad commit\\*\\* \\[\`${FIRST_BAD.slice(0, 12)}\`\\]\\(${url(FIRST_BAD)}\\) filedir: look at the working directory`
      )
    )
    expect(lines[0]).toContain('16 commits, 6 measured')
    expect(md).toContain('- test 9 afpd stat calls: 42,900 → 53,900 (+25.6 %)')
    expect(md).toContain('FPGetFileDirParms: newfstatat 3.9 → 4.9 per call')
    expect(md).toMatch(/skipped: \[`4b73b26711fc`\]\([^)]*\) does not build$/m)
    // a comment stays short: at most a headline line, three rows, the
    // commands and the skipped
    expect(lines.length).toBeLessThanOrEqual(6)
  })

  it('says when the budget ran out, and which commits are still in question', () => {
    const file = path.join(FIXTURES, 'budget.json')
    expect(readBisect(file).status).toBe('budget')
    const md = section(file)
    expect(md).toContain('ran out of its budget')
    expect(md).toContain('one of 16')
  })

  it('says how many commits were decided without a build', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'afpbench-bisect-test-'))
    const file = path.join(dir, 'bisect.json')
    const found = JSON.parse(readFileSync(path.join(FIXTURES, 'found.json'), 'utf8')) as object
    writeFileSync(
      file,
      JSON.stringify({
        ...found,
        unbuilt: [{ commit: GOOD, as: BAD, files: ['.github/workflows/ci.yml'] }]
      })
    )
    expect(section(file)).toContain('6 measured, 1 decided without a build')
  })

  it('reads a hostile result safely: mentions and Markdown in a subject defused, bad SHAs dropped', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'afpbench-bisect-test-'))
    const file = path.join(dir, 'bisect.json')
    writeFileSync(
      file,
      JSON.stringify({
        schema: 'afpbench-bisect/1',
        status: 'found',
        good: GOOD,
        bad: BAD,
        first_bad: FIRST_BAD,
        subject: 'fix @octocat <img src=x> **bold** [x](http://evil)\n::set-output name=x::y',
        author: 'a',
        date: '2026-01-01',
        commits: 2,
        probes: 3,
        seconds: 5,
        skipped: ['not-a-sha'],
        rows: [{ metric: 'lantest.9.afpd_sys_stat', label: 'x', good: 1, bad: 2, commands: 'no' }],
        log: [{ commit: 'not-a-sha', state: 'skip', why: 'x' }]
      })
    )
    const r = readBisect(file)
    expect(r.skipped).toEqual([])
    const md = section(file)
    expect(md).not.toContain('@octocat')
    // escaped: GitHub shows "<img" as text, and no link or emphasis opens
    expect(md).not.toMatch(/(^|[^\\])<img/)
    expect(md).not.toMatch(/(^|[^\\])\*\*bold/)
    expect(md).not.toMatch(/(^|[^\\])\[x\]/)
    expect(md).not.toContain('\n::set-output')
    expect(md).not.toContain('skipped')
    writeFileSync(file, JSON.stringify({ schema: 'other' }))
    expect(() => readBisect(file)).toThrow(/not an afpbench-bisect\/1 result/)
  })

  it('puts the answer under the report headline', () => {
    const report = '<!-- m -->\n### ❌ afpbench: fail — x\n\nDiffers: y\n'
    expect(withBisect(report, '**First bad commit** z\n').split('\n').slice(0, 5)).toEqual([
      '<!-- m -->',
      '### ❌ afpbench: fail — x',
      '',
      '**First bad commit** z',
      ''
    ])
    expect(withBisect(report, '')).toBe(report)
  })
})

// A git repository of three commits, for the checks made before scripts/bisect runs.
function gitRepo(): { dir: string; commits: string[] } {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'afpbench-bisect-repo-'))
  const git = (...args: string[]): string =>
    spawnSync('git', ['-C', dir, ...args], {
      encoding: 'utf8',
      env: {
        ...process.env,
        GIT_AUTHOR_NAME: 'a',
        GIT_AUTHOR_EMAIL: 'a@x',
        GIT_COMMITTER_NAME: 'a',
        GIT_COMMITTER_EMAIL: 'a@x'
      }
    }).stdout.trim()
  git('init', '-q')
  const commits: string[] = []
  for (const n of [1, 2, 3]) {
    writeFileSync(path.join(dir, 'f'), String(n))
    git('add', 'f')
    git('commit', '-q', '-m', `c${n}`)
    commits.push(git('rev-parse', 'HEAD'))
  }
  return { dir, commits }
}

describe('bisectAfterRun', () => {
  function context(over: Partial<BisectContext>, run: Runner): BisectContext {
    const results = mkdtempSync(path.join(os.tmpdir(), 'afpbench-bisect-results-'))
    // the run's verdict.json, which scripts/bisect --rows-of reads
    writeFileSync(
      path.join(results, 'verdict.json'),
      JSON.stringify(over.verdict ?? verdict('pass', []))
    )
    return {
      config: { repo: '/nonexistent', budgetSeconds: 600 },
      event: event(),
      verdict: verdict('pass', []),
      records: [],
      pushWritesHistory: true,
      run,
      actionDir: REPO_ROOT,
      env: {},
      isRoot: true,
      resultsDir: results,
      work: path.join(results, 'work'),
      afpConf: '',
      engine: false,
      commitUrl: (sha) => `https://github.com/o/r/commit/${sha}`,
      commentOnCommit: null,
      ...over
    }
  }
  // a pull request of the repository's commits that fails on a count row
  function failingPullRequest(dir: string, commits: string[]): Partial<BisectContext> {
    return {
      config: { repo: dir, budgetSeconds: 600 },
      event: event({
        name: 'pull_request',
        pullRequest: 3,
        baseSha: commits[0],
        headSha: commits[2]
      }),
      verdict: verdict('fail', [row('lantest.9.afpd_sys_stat', 5, { state: 'fail' })])
    }
  }
  // stands in for scripts/bisect (root and real servers): records its
  // arguments and writes the result a real bisect wrote
  function fakeBisect(fixture: string, status = 0): Runner & { calls: string[][] } {
    const calls: string[][] = []
    const run = async (cmd: string, args: string[]): Promise<number> => {
      calls.push([cmd, ...args])
      const json = args[args.indexOf('--json') + 1]
      copyFileSync(path.join(FIXTURES, fixture), json)
      return Promise.resolve(status)
    }
    return Object.assign(run, { calls })
  }

  it('a pull request that fails on counts: bisects its merge-base..head and puts the answer in the comment', async () => {
    const { dir, commits } = gitRepo()
    const run = fakeBisect('found.json')
    const out = await bisectAfterRun(context(failingPullRequest(dir, commits), run), log)
    const argv = run.calls[0]
    expect(argv[0]).toBe(path.join(REPO_ROOT, 'scripts', 'bisect'))
    expect(argv.slice(argv.indexOf('--good'), argv.indexOf('--good') + 6)).toEqual([
      '--good',
      commits[0],
      '--bad',
      commits[2],
      '--tests',
      '9'
    ])
    expect(argv).toContain('--budget')
    expect(out.firstBad).toBe(FIRST_BAD)
    expect(out.comment).toContain('**First bad commit**')
  })

  it('as another user than root, through sudo -n', async () => {
    const { dir, commits } = gitRepo()
    const run = fakeBisect('found.json')
    await bisectAfterRun(context({ ...failingPullRequest(dir, commits), isRoot: false }, run), log)
    expect(run.calls[0].slice(0, 2)).toEqual(['sudo', '-n'])
  })

  it('server: compose bisects on the engine: --engine, no sudo and no --afp-conf even as another user', async () => {
    const { dir, commits } = gitRepo()
    const run = fakeBisect('found.json')
    await bisectAfterRun(
      context(
        {
          ...failingPullRequest(dir, commits),
          isRoot: false,
          engine: true,
          afpConf: '/a/afp.conf'
        },
        run
      ),
      log
    )
    const argv = run.calls[0]
    expect(argv[0]).toBe(path.join(REPO_ROOT, 'scripts', 'bisect'))
    expect(argv).toContain('--engine')
    expect(argv).not.toContain('--afp-conf')
    // natively the same run goes through sudo with the afp.conf
    const native = fakeBisect('found.json')
    await bisectAfterRun(
      context(
        { ...failingPullRequest(dir, commits), isRoot: false, afpConf: '/a/afp.conf' },
        native
      ),
      log
    )
    expect(native.calls[0].slice(0, 2)).toEqual(['sudo', '-n'])
    expect(native.calls[0]).toContain('--afp-conf')
    expect(native.calls[0]).not.toContain('--engine')
  })

  it('a push: comments on the first bad commit, never in a pull request comment', async () => {
    const { dir, commits } = gitRepo()
    const run = fakeBisect('found.json')
    const posted: string[] = []
    const out = await bisectAfterRun(
      context(
        {
          config: { repo: dir, budgetSeconds: 600 },
          event: event({ headSha: commits[2] }),
          verdict: verdict('pass', [row('lantest.9.afpd_sys_stat', 53900)]),
          records: [previous({ 'lantest.9.afpd_sys_stat': 42900 }, commits[0])],
          commentOnCommit: (sha, body) => {
            posted.push(sha, body)
            return Promise.resolve('https://github.com/o/r/commit/x#commitcomment-1')
          }
        },
        run
      ),
      log
    )
    expect(run.calls).toHaveLength(1)
    expect(posted[0]).toBe(FIRST_BAD)
    expect(posted[1]).toContain('**First bad commit**')
    expect(out.comment).toBe('')
    expect(out.summary).toContain('Posted on the commit')
  })

  it('says why it did not run: no history of its commits, a repository that is not one, a release', async () => {
    const run = fakeBisect('found.json')
    const shallow = await bisectAfterRun(
      context(
        {
          event: event({ name: 'pull_request', pullRequest: 3, baseSha: GOOD }),
          verdict: verdict('fail', [row('lantest.9.afpd_sys_stat', 5, { state: 'fail' })])
        },
        run
      ),
      log
    )
    expect(shallow.summary).toContain('/nonexistent does not exist')
    const { dir } = gitRepo()
    const missing = await bisectAfterRun(
      context(
        {
          config: { repo: dir, budgetSeconds: 600 },
          event: event({ name: 'pull_request', pullRequest: 3, baseSha: GOOD }),
          verdict: verdict('fail', [row('lantest.9.afpd_sys_stat', 5, { state: 'fail' })])
        },
        run
      ),
      log
    )
    expect(missing.summary).toContain('fetch-depth: 0')
    const release = await bisectAfterRun(context({ event: event({ name: 'release' }) }, run), log)
    expect(release.summary).toContain('no commits to bisect')
    expect(run.calls).toHaveLength(0)
    expect(checkoutProblem(os.tmpdir(), [])).toContain('not a git checkout')
  })

  it('a bisect that writes no result is a warning in the summary, not a crash', async () => {
    const { dir, commits } = gitRepo()
    const run = Object.assign(async () => Promise.resolve(3), { calls: [] })
    const out = await bisectAfterRun(context(failingPullRequest(dir, commits), run), log)
    expect(out.summary).toContain('scripts/bisect exited 3 and wrote no result')
    expect(out.firstBad).toBe('')
  })
})

describe('parseBisect', () => {
  const ctx = { workspace: '/ws', actionDir: '/a' }
  it('is off by default, on with true, from netatalk-source else the workspace', () => {
    expect(parseBisect('false', '30', 'gate', '', ctx)).toBeNull()
    expect(parseBisect('true', '30', 'gate', '', ctx)).toEqual({ repo: '/ws', budgetSeconds: 1800 })
    expect(parseBisect('true', '5', 'gate', '/src/netatalk', ctx)).toEqual({
      repo: '/src/netatalk',
      budgetSeconds: 300
    })
  })
  it('refuses what it cannot do, naming the input', () => {
    expect(() => parseBisect('yes', '30', 'gate', '', ctx)).toThrow(InputError)
    expect(() => parseBisect('true', '0', 'gate', '', ctx)).toThrow(/bisect-budget.*out of range/)
    expect(() => parseBisect('true', '30', 'baseline', '', ctx)).toThrow(/mode: gate/)
  })
})
