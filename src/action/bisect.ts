// The opt-in bisect (input bisect, docs/bisect.md "In the action"): which
// commits to bisect after a run, scripts/bisect run on them, and its answer
// as the comment and the job summary show it.
//
// - A push whose count rows moved against main's previous run of the same key
//   bisects from that run's commit to this one: the commits the push brought.
// - A pull request that fails on count rows bisects its own commits, from its
//   merge-base to its head.
// scripts/bisect measures the ends itself and follows only the rows it finds
// exact; this module only decides whether there is something to bisect.

import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, statSync } from 'node:fs'
import path from 'node:path'
import { MIN_STEP } from './drift.js'
import type { EventInfo } from './event.js'
import type { HistoryRecord } from './history-record.js'
import type { Runner } from './runner.js'
import type { Verdict } from './verdict.js'

export interface BisectConfig {
  repo: string // the netatalk git checkout (absolute)
  budgetSeconds: number
}

export interface BisectPlan {
  good: string
  bad: string
  tests: string // the lantest tests to measure, "9,12"
  why: string // one sentence: why these commits
}

export type BisectDecision = { plan: BisectPlan } | { plan: null; why: string }

// What scripts/bisect can follow in a verdict, as it says itself
// (`scripts/bisect --rows-of verdict.json`): a lantest test's system calls by
// family or IO, with their state and count, and the A/A tolerance (calls or
// bytes) within which a row is exact. One rule, in scripts/bisect.
export interface Followable {
  tolerance: number
  rows: { metric: string; state: string; current: number | null }[]
}

export function followableRows(actionDir: string, verdictFile: string): Followable {
  const r = spawnSync(path.join(actionDir, 'scripts', 'bisect'), ['--rows-of', verdictFile], {
    encoding: 'utf8',
    timeout: 60_000,
    maxBuffer: 16 * 1024 * 1024
  })
  if (r.status !== 0)
    throw new Error(
      `scripts/bisect --rows-of ${verdictFile}: ${(r.stderr ?? r.error?.message ?? '').trim().slice(0, 300)}`
    )
  const j = obj(JSON.parse(r.stdout))
  return {
    tolerance: num(j.tolerance),
    rows: arr(j.rows)
      .map(obj)
      .filter((x) => typeof x.metric === 'string')
      .map((x) => ({
        metric: line(x.metric, 200),
        state: line(x.state, 20),
        current: typeof x.current === 'number' && Number.isFinite(x.current) ? x.current : null
      }))
  }
}

function testOf(metric: string): number | null {
  const m = /^lantest\.([0-9]+)\./.exec(metric)
  return m ? Number(m[1]) : null
}

function testList(metrics: string[]): string {
  const tests = [...new Set(metrics.map(testOf).filter((t): t is number => t !== null))]
  return tests.sort((a, b) => a - b).join(',')
}

function short(sha: string): string {
  return sha.slice(0, 12)
}

// A push: the rows this run measured against the previous run of main (the
// newest record of another commit). previous: what the history read before
// this run was written.
export function planForPush(
  event: EventInfo,
  follow: Followable,
  previous: HistoryRecord | null
): BisectDecision {
  if (previous === null)
    return { plan: null, why: 'the history holds no earlier run of main to bisect from' }
  if (previous.commit === event.headSha)
    return {
      plan: null,
      why: `main's previous run measured this same commit ${short(event.headSha)}`
    }
  const moved: string[] = []
  // moved: by more than the tail call bisect's A/A allows, and than the
  // history's smallest step
  for (const row of follow.rows) {
    if (row.current === null) continue
    const before = previous.tests[row.metric]
    if (before === undefined) continue
    const d = Math.abs(row.current - before)
    if (d > follow.tolerance && d > MIN_STEP * Math.abs(before)) moved.push(row.metric)
  }
  if (moved.length === 0)
    return {
      plan: null,
      why: `no count row moved against main's previous run (${short(previous.commit)})`
    }
  return {
    plan: {
      good: previous.commit,
      bad: event.headSha,
      tests: testList(moved),
      why: `${moved.length} count row(s) moved against main's previous run (${short(previous.commit)}), e.g. ${moved[0]}`
    }
  }
}

// A pull request: its own commits, when it fails on count rows. mergeBase:
// the merge-base of its base and head in the repository.
export function planForPullRequest(
  event: EventInfo,
  verdict: Verdict,
  follow: Followable,
  mergeBase: string
): BisectDecision {
  if (verdict.status !== 'fail')
    return { plan: null, why: `the verdict is ${verdict.status}, not fail` }
  const failing = verdict.rows.filter((r) => r.state === 'fail')
  const exact = follow.rows.filter((r) => r.state === 'fail').map((r) => r.metric)
  if (exact.length === 0)
    return {
      plan: null,
      why:
        `it fails on ${[...new Set(failing.map((r) => r.kind))].join(', ') || 'no row'} only: ` +
        'timings, CPU time, waits and instructions are not exact, so a probe of them could not be certain'
    }
  if (mergeBase === event.headSha)
    return { plan: null, why: 'its head is its merge-base: it has no commits of its own' }
  return {
    plan: {
      good: mergeBase,
      bad: event.headSha,
      tests: testList(exact),
      why: `it fails on ${exact.length} count row(s), e.g. ${exact[0]}`
    }
  }
}

// git in the checkout, for what the plan needs before scripts/bisect runs.
function git(repo: string, args: string[]): { ok: boolean; out: string } {
  const r = spawnSync('git', ['-C', repo, ...args], { encoding: 'utf8', timeout: 60_000 })
  return { ok: r.status === 0, out: `${r.stdout ?? ''}${r.stderr ?? ''}`.trim() }
}

// Why the checkout cannot be bisected from good to bad ('' when it can).
export function checkoutProblem(repo: string, commits: string[]): string {
  if (!existsSync(repo)) return `${repo} does not exist`
  if (!git(repo, ['rev-parse', '--git-dir']).ok)
    return `${repo} is not a git checkout (the bisect needs the netatalk repository: netatalk-source, or the workspace)`
  for (const c of commits)
    if (!git(repo, ['cat-file', '-e', `${c}^{commit}`]).ok)
      return (
        `commit ${short(c)} is not in ${repo}: check it out with its history ` +
        '(actions/checkout with fetch-depth: 0)'
      )
  return ''
}

export function mergeBaseOf(repo: string, a: string, b: string): string {
  const r = git(repo, ['merge-base', a, b])
  if (!r.ok) throw new Error(`git merge-base ${short(a)} ${short(b)} in ${repo}: ${r.out}`)
  return r.out.split('\n')[0]
}

export interface BisectRun {
  status: number // scripts/bisect's: 0 found, 1 no difference, 3 error, 4 budget
  json: string // its result file ('' when it wrote none)
}

// scripts/bisect on the plan. With server: compose (engine) each probe is
// built and served on the Docker engine (--engine), as the run itself was,
// and needs no root; the server's settings travel as compose's
// AFP_EXTRA_GLOBAL/AFP_EXTRA_VOLUME in env. Else natively, as root (it serves
// each probe with scripts/local-server): directly when the action runs as
// root, else through passwordless sudo, which GitHub's hosted runners have.
export async function runBisect(
  run: Runner,
  actionDir: string,
  config: BisectConfig,
  plan: BisectPlan,
  out: { work: string; resultsDir: string; afpConf: string; engine: boolean },
  env: Record<string, string>,
  isRoot: boolean
): Promise<BisectRun> {
  mkdirSync(out.resultsDir, { recursive: true })
  const json = path.join(out.resultsDir, 'bisect.json')
  const args = [
    path.join(actionDir, 'scripts', 'bisect'),
    '--repo',
    config.repo,
    '--good',
    plan.good,
    '--bad',
    plan.bad,
    '--tests',
    plan.tests,
    '--budget',
    String(config.budgetSeconds),
    '--work',
    out.work,
    '--json',
    json,
    '--report',
    path.join(out.resultsDir, 'bisect.md'),
    ...(out.engine ? ['--engine'] : out.afpConf !== '' ? ['--afp-conf', out.afpConf] : [])
  ]
  const status =
    isRoot || out.engine
      ? await run(args[0], args.slice(1), { env })
      : await run('sudo', ['-n', '--preserve-env=PATH', ...args], { env })
  return { status, json: existsSync(json) ? json : '' }
}

// scripts/bisect's result (afpbench-bisect/1), read as untrusted: what the
// action decides on (its answer, for the output and the commit comment).
// Its Markdown is scripts/jq/bisect-report.jq's (bisectSection).
export interface BisectResult {
  status: 'found' | 'no difference' | 'budget' | 'error'
  message: string
  firstBad: string | null
  skipped: string[]
}

const MAX_BISECT_BYTES = 4 * 1024 * 1024
const SHA = /^[0-9a-f]{40}$/

type Json = Record<string, unknown>
function obj(v: unknown): Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Json) : {}
}
function arr(v: unknown): unknown[] {
  return Array.isArray(v) ? v : []
}
// Rejecting control characters is the point of this pattern.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/g
// one line of printable text
function line(v: unknown, max = 200): string {
  return typeof v === 'string' ? v.replace(CONTROL, ' ').slice(0, max).trim() : ''
}
function num(v: unknown): number {
  return typeof v === 'number' && Number.isFinite(v) ? v : 0
}

export function readBisect(file: string): BisectResult {
  if (statSync(file).size > MAX_BISECT_BYTES)
    throw new Error(`${file} is larger than ${MAX_BISECT_BYTES} bytes`)
  const j = obj(JSON.parse(readFileSync(file, 'utf8')))
  if (j.schema !== 'afpbench-bisect/1')
    throw new Error(`${file} is not an afpbench-bisect/1 result`)
  const status = ['found', 'no difference', 'budget'].includes(String(j.status))
    ? (j.status as BisectResult['status'])
    : 'error'
  return {
    status,
    message: line(j.message, 600),
    firstBad: typeof j.first_bad === 'string' && SHA.test(j.first_bad) ? j.first_bad : null,
    skipped: arr(j.skipped).filter((x): x is string => typeof x === 'string' && SHA.test(x))
  }
}

// The section the comment and the job summary show (a few lines, the answer
// first), written by bisect.md's own writer, scripts/jq/bisect-report.jq,
// with its escaping. commitUrl: a commit's page.
export function bisectSection(
  actionDir: string,
  file: string,
  commitUrl: (sha: string) => string
): string {
  const jqDir = path.join(actionDir, 'scripts', 'jq')
  const r = spawnSync(
    'jq',
    [
      '-r',
      '-L',
      jqDir,
      '-f',
      path.join(jqDir, 'bisect-report.jq'),
      '--arg',
      'form',
      'section',
      '--arg',
      'commit_url',
      commitUrl('{sha}'),
      file
    ],
    { encoding: 'utf8', timeout: 60_000, maxBuffer: 4 * MAX_BISECT_BYTES }
  )
  if (r.status !== 0)
    throw new Error(
      `bisect-report.jq on ${file}: ${(r.stderr ?? r.error?.message ?? '').trim().slice(0, 300)}`
    )
  return `${r.stdout.trimEnd()}\n`
}

// Where a bisect's answer goes into a report: under its headline, so that
// the commit to blame is among the first lines.
export function withBisect(report: string, section: string): string {
  if (section === '') return report
  const lines = report.split('\n')
  const at = lines.findIndex((l) => l.startsWith('### '))
  if (at < 0) return `${report.trimEnd()}\n\n${section}`
  lines.splice(at + 1, 0, '', section.trimEnd())
  return lines.join('\n')
}

export interface Logger {
  info(message: string): void
  warning(message: string): void
}

export interface BisectContext {
  config: BisectConfig
  event: EventInfo
  verdict: Verdict
  // main's runs of this key before this one (push), oldest first
  records: HistoryRecord[]
  pushWritesHistory: boolean // a push to the default branch, recorded
  run: Runner
  actionDir: string
  env: Record<string, string>
  isRoot: boolean
  resultsDir: string
  work: string
  afpConf: string
  engine: boolean // server: compose: the probes built and served on the engine
  commitUrl: (sha: string) => string
  // posts the answer on a commit (push); resolves to its URL
  commentOnCommit: ((sha: string, body: string) => Promise<string>) | null
}

export interface BisectOutcome {
  comment: string // the section for the pull request comment ('' = none)
  summary: string // the job summary's lines
  firstBad: string // '' when none was found
}

// The rows scripts/bisect can follow in this run's verdict, or why there are
// none to be had.
function followable(ctx: BisectContext): Followable | string {
  try {
    return followableRows(ctx.actionDir, path.join(ctx.resultsDir, 'verdict.json'))
  } catch (e) {
    return e instanceof Error ? e.message : String(e)
  }
}

// Decide, bisect, and say what came of it. Never throws: a bisect is an
// addition to the verdict, and its failure is a warning.
export async function bisectAfterRun(ctx: BisectContext, log: Logger): Promise<BisectOutcome> {
  const none = (why: string): BisectOutcome => {
    log.info(`Not bisected: ${why}.`)
    return { comment: '', summary: `**Bisect:** not run: ${why}.\n`, firstBad: '' }
  }
  const { event, verdict } = ctx
  let decision: BisectDecision
  if (event.name === 'push') {
    if (!ctx.pushWritesHistory)
      return none('a push bisects only on the default branch, whose runs the history keeps')
    const previous = [...ctx.records].reverse().find((r) => r.commit !== event.headSha) ?? null
    const follow = followable(ctx)
    if (typeof follow === 'string') return none(follow)
    decision = planForPush(event, follow, previous)
  } else if (event.pullRequest !== null) {
    const problem = checkoutProblem(ctx.config.repo, [event.baseSha, event.headSha])
    if (problem !== '') return none(problem)
    let base: string
    try {
      base = mergeBaseOf(ctx.config.repo, event.baseSha, event.headSha)
    } catch (e) {
      return none(e instanceof Error ? e.message : String(e))
    }
    const follow = followable(ctx)
    if (typeof follow === 'string') return none(follow)
    decision = planForPullRequest(event, verdict, follow, base)
  } else {
    return none(
      `a ${event.name || 'run'} event has no commits to bisect (a push or a pull request has)`
    )
  }
  if (decision.plan === null) return none(decision.why)
  const plan = decision.plan
  const problem = checkoutProblem(ctx.config.repo, [plan.good, plan.bad])
  if (problem !== '') return none(problem)
  log.info(
    `Bisecting ${short(plan.good)}..${short(plan.bad)} of ${ctx.config.repo} on lantest ${plan.tests}: ${plan.why} (budget ${ctx.config.budgetSeconds} s)`
  )
  let result: BisectResult
  let section: string
  try {
    const r = await runBisect(
      ctx.run,
      ctx.actionDir,
      ctx.config,
      plan,
      { work: ctx.work, resultsDir: ctx.resultsDir, afpConf: ctx.afpConf, engine: ctx.engine },
      ctx.env,
      ctx.isRoot
    )
    if (r.json === '') throw new Error(`scripts/bisect exited ${r.status} and wrote no result`)
    result = readBisect(r.json)
    section = bisectSection(ctx.actionDir, r.json, ctx.commitUrl)
  } catch (e) {
    const why = e instanceof Error ? e.message : String(e)
    log.warning(`The bisect failed: ${why}`)
    return { comment: '', summary: `**Bisect** failed: ${why}\n`, firstBad: '' }
  }
  const firstBad = result.status === 'found' && result.firstBad !== null ? result.firstBad : ''
  let summary = section
  if (event.name === 'push' && firstBad !== '' && ctx.commentOnCommit !== null) {
    try {
      const url = await ctx.commentOnCommit(firstBad, `### afpbench bisect\n\n${section}`)
      log.info(`The bisect's answer is on commit ${short(firstBad)}: ${url}`)
      summary += `\nPosted on the commit: ${url}\n`
    } catch (e) {
      log.warning(
        `Could not comment on commit ${short(firstBad)} (the token needs contents: write): ${e instanceof Error ? e.message : String(e)}`
      )
    }
  }
  // a pull request's answer reaches the job summary with its report
  return event.pullRequest !== null
    ? { comment: section, summary: '', firstBad }
    : { comment: '', summary, firstBad }
}
