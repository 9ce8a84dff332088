// End to end: the committed dist/ bundle, run as GitHub runs it, in host:port
// mode against the REAL netatalk server that scripts/local-server starts. What
// cannot exist here is stood in for, and only that: GitHub's REST API is a
// local HTTP server that records every request (fake-github.ts); the artifact
// service is absent (the action must skip the upload with a warning).
//
// Verdicts are produced honestly from real measurements: a baseline mode run
// writes the baseline; "fail" compares with a copy whose afpd writes are
// halved by jq (so the real, unchanged server doubles them); "inconclusive"
// with a copy whose timing samples are spread 2500-fold by jq (noise far above
// any threshold) and timings gated against it (baseline-timings: gate; by
// default they are shown and the same run passes); "pass" with the baseline as
// measured and wide thresholds.

import {
  appendFileSync,
  cpSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  utimesSync,
  writeFileSync
} from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { FakeGitHubServer } from './fake-github.js'
import {
  e2ePort,
  jqTransform,
  requireE2ePrerequisites,
  runAction,
  startLocalServer,
  stopLocalServer,
  type ActionRun,
  type RunSpec,
  type ServerSettings
} from './harness.js'

const PORT = e2ePort(1) // 10591: the action engineer's range, 10590-10599
const PASSWORD = 'e2eSecr8' // not the default, so the action must mask it
const TOKEN = 'ghs_e2eTokenThatMustNeverBePrinted'
const FORK_HEAD = 'c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00'

let server: ServerSettings
const api = new FakeGitHubServer()
const workspace = mkdtempSync(path.join(os.tmpdir(), 'afpbench-e2e-'))
const baseline = path.join(workspace, 'baseline.json')
const failBaseline = path.join(workspace, 'baseline-fail.json')
const noisyBaseline = path.join(workspace, 'baseline-noisy.json')

// A short, real run: lantest tests 4 (locking) and 10 (mixed cache), whose
// afpd IO counts are deterministic, 3 iterations each.
function gateInputs(extra: Record<string, string>): Record<string, string> {
  return {
    server: `${server.host}:${server.port}`,
    'proc-io': server.procIo,
    'afp-user': server.user,
    'afp-password': server.password,
    volume: server.share,
    tests: '4,10',
    iterations: '3',
    // cnid_dbd's writes move by a fraction of a percent between runs; 10 %
    // keeps the pass and inconclusive cases from tripping on that.
    'io-threshold': '10',
    // The server's CPU time per op (a timing, with its own threshold) swings by more
    // than that between two sessions of 3 iterations: these cases are about
    // the IO and time rows, so the CPU rows are kept out of the verdict.
    thresholds: 'wide-cpu.json',
    'github-token': TOKEN,
    ...extra
  }
}

async function run(
  eventName: string,
  eventFile: string,
  inputs: Record<string, string>,
  extra: Partial<RunSpec> = {}
): Promise<ActionRun> {
  const r = await runAction({
    inputs,
    eventName,
    eventFile,
    workspace,
    apiUrl: api.url,
    jobToken: TOKEN,
    ...extra
  })
  checkSecrets(r, inputs['results-dir'])
  return r
}

// The token and the password appear only in the runner's mask commands
// (::add-mask::, which GitHub's runner turns into *** in everything after).
function checkSecrets(r: ActionRun, resultsDir: string | undefined): void {
  for (const secret of [TOKEN, PASSWORD]) {
    const masked = `::add-mask::${secret}`
    expect(r.log.split('\n').filter((l) => l.includes(secret) && l !== masked)).toEqual([])
    if (r.log.includes(secret)) expect(r.log.startsWith('::add-mask::')).toBe(true)
    expect(r.summary).not.toContain(secret)
  }
  if (resultsDir) {
    const dir = path.join(workspace, resultsDir)
    for (const f of existsSync(dir)
      ? readdirSync(dir, { recursive: true, encoding: 'utf8' })
      : []) {
      const file = path.join(dir, f)
      if (!f.endsWith('.png') && existsSync(file) && !file.endsWith('charts'))
        try {
          expect(readFileSync(file, 'utf8'), f).not.toContain(PASSWORD)
        } catch (e) {
          if ((e as NodeJS.ErrnoException).code !== 'EISDIR') throw e
        }
    }
  }
  for (const req of api.requests) expect(JSON.stringify(req.body)).not.toContain(PASSWORD)
}

beforeAll(async () => {
  requireE2ePrerequisites()
  await api.start()
  writeFileSync(
    path.join(workspace, 'wide-cpu.json'),
    JSON.stringify({ schema: 'afpbench-thresholds/1', defaults: { cpu: 1000 } })
  )
  server = startLocalServer(PORT, PASSWORD)
  expect(server.password).toBe(PASSWORD)
})

afterAll(async () => {
  stopLocalServer(PORT)
  await api.stop()
})

describe('the action, as GitHub runs it, against a real netatalk server', () => {
  it('release event, mode: baseline — measures and writes the baseline; no comment', async () => {
    const r = await run(
      'release',
      'release.json',
      gateInputs({ mode: 'baseline', baseline: 'baseline.json', 'results-dir': 'res-baseline' })
    )
    expect(r.status, r.log).toBe(0)
    expect(r.outputs.baseline).toBe(baseline)
    expect(JSON.parse(readFileSync(baseline, 'utf8'))).toMatchObject({
      schema: 'afpbench-baseline/1'
    })
    // no comment; the release's run goes to the history (docs/history.md), and
    // that is all the API hears
    expect(api.requests.filter((q) => !q.path.includes('/git/'))).toEqual([])
    expect(api.branches.get('afpbench-data')).toBeDefined()
    expect(r.log).toMatch(/Results not uploaded as an artifact: ACTIONS_RUNTIME_TOKEN/)
    expect(r.log).toMatch(/::group::Build afpbench/)

    // The derived baselines for the fail and inconclusive cases.
    jqTransform(
      // afpd's writes, and those on the network (its replies), which decide
      // where they are counted by descriptor kind
      '.tests[].samples[] |= ((.afpd_w, .afpd_net_w) |= (if . == null then null else (. / 2 | floor) end))',
      baseline,
      failBaseline
    )
    jqTransform(
      '.tests[].samples |= [to_entries[] | .value.us = (.value.us * ([50, 1, 0.02][.key % 3]) | floor) | .value]',
      baseline,
      noisyBaseline
    )
  })

  it('pull_request, pass — creates one comment, commits the charts, sets the outputs', async () => {
    const r = await run(
      'pull_request',
      'pull_request.json',
      gateInputs({
        baseline: 'baseline.json',
        'time-threshold': '1000',
        'io-threshold': '10',
        'fail-on': 'inconclusive',
        'results-dir': 'res-pass'
      })
    )
    expect(r.status, r.log).toBe(0)
    expect(r.outputs.verdict).toBe('pass')
    expect(Number(r.outputs['time-per-op-ratio'])).toBeGreaterThan(0)
    expect(r.outputs['writes-per-op-ratio']).toBe('1')
    expect(r.outputs.regressions).toBe('0')
    expect(r.outputs['regressed-metrics']).toBe('[]')
    expect(r.outputs['results-dir']).toBe(path.join(workspace, 'res-pass'))
    expect(existsSync(r.outputs.report)).toBe(true)
    const created = api.requests.filter(
      (q) => q.method === 'POST' && q.path.endsWith('/issues/42/comments')
    )
    expect(created).toHaveLength(1)
    expect(created[0].authorization).toBe(`token ${TOKEN}`)
    expect(api.comments).toHaveLength(1)
    const body = api.comments[0].body
    expect(body.split('\n')[0]).toBe('<!-- afpbench-action:report -->')
    // Charts: blobs, a tree, an orphan commit and the branch, linked by commit SHA.
    const tip = api.branches.get('afpbench-assets')
    expect(tip).toBeDefined()
    expect(api.commits.get(tip ?? '')?.parents).toEqual([])
    expect(body).toContain(`https://github.com/octo-org/afp-server/blob/${tip}/charts/`)
    expect(r.outputs['comment-url']).toContain(`#issuecomment-${api.comments[0].id}`)
    expect(r.summary).toContain('afpbench')
    expect(
      JSON.parse(readFileSync(path.join(workspace, 'res-pass', 'action-context.json'), 'utf8'))
    ).toMatchObject({
      pull_request: 42,
      fork: false
    })
  })

  it('pull_request, fail — updates that same comment and fails the step (fail-on: regression)', async () => {
    const before = api.requests.length
    const r = await run(
      'pull_request',
      'pull_request.json',
      gateInputs({
        baseline: 'baseline-fail.json',
        'time-threshold': '1000',
        'results-dir': 'res-fail',
        'check-run': 'true'
      })
    )
    expect(r.status, r.log).toBe(1)
    // the verdict in the checks list too, titled with the headline
    expect(api.checkRuns).toHaveLength(1)
    const check = api.checkRuns[0] as {
      name: string
      head_sha: string
      conclusion: string
      output: { title: string; summary: string }
    }
    expect(check.name).toBe('afpbench')
    expect(check.head_sha).toMatch(/^[0-9a-f]{40}$/)
    expect(check.conclusion).toBe('failure')
    expect(check.output.title).toMatch(/^fail: \S/)
    expect(check.output.summary).toContain('### ❌ afpbench: **fail**')
    expect(r.outputs['check-run-url']).toMatch(/\/runs\/\d+$/)
    expect(r.outputs.verdict).toBe('fail')
    expect(Number(r.outputs['writes-per-op-ratio'])).toBeGreaterThan(1.9)
    expect(Number(r.outputs.regressions)).toBeGreaterThan(0)
    expect(JSON.parse(r.outputs['regressed-metrics'])).toContain('aggregate.afpd_net_w_per_op')
    expect(r.log).toMatch(/::error::afpbench verdict: fail/)
    const mine = api.requests.slice(before)
    expect(mine.filter((q) => q.method === 'POST' && q.path.includes('/comments'))).toEqual([])
    expect(
      mine.filter(
        (q) => q.method === 'PATCH' && q.path.endsWith(`/issues/comments/${api.comments[0].id}`)
      )
    ).toHaveLength(1)
    expect(api.comments).toHaveLength(1)
    expect(api.comments[0].body).toMatch(/fail/)
    // The second charts commit descends from the first.
    const tip = api.branches.get('afpbench-assets') ?? ''
    expect(api.commits.get(tip)?.parents).toHaveLength(1)
  })

  it("artifact-name: '' and assets-branch: '' are off — no upload, no chart commit (issue 10)", async () => {
    const before = api.requests.length
    const tip = api.branches.get('afpbench-assets')
    const r = await run(
      'pull_request',
      'pull_request.json',
      gateInputs({
        baseline: 'baseline.json',
        'time-threshold': '1000',
        'artifact-name': '',
        'assets-branch': '',
        'results-dir': 'res-off'
      })
    )
    expect(r.status, r.log).toBe(0)
    // no upload was tried (the default name would have warned that the service is absent)
    expect(r.log).not.toMatch(/Results not uploaded|Uploading artifact/)
    expect(r.outputs['artifact-id'] ?? '').toBe('')
    // no blob, tree, commit or ref written (the history is read): the assets
    // branch is where it was
    expect(
      api.requests.slice(before).filter((q) => q.path.includes('/git/') && q.method !== 'GET')
    ).toEqual([])
    expect(api.branches.get('afpbench-assets')).toBe(tip)
    expect(api.comments[0].body).not.toContain('/blob/')
  })

  it('fail verdict with fail-on: never — the step passes, with a warning', async () => {
    const r = await run(
      'pull_request',
      'pull_request.json',
      gateInputs({
        baseline: 'baseline-fail.json',
        'time-threshold': '1000',
        'fail-on': 'never',
        comment: 'never',
        'results-dir': 'res-fail-never'
      })
    )
    expect(r.status, r.log).toBe(0)
    expect(r.outputs.verdict).toBe('fail')
    expect(r.log).toMatch(
      /::warning::afpbench verdict: fail.*not failing the step \(fail-on: never\)/
    )
  })

  it('push event, inconclusive with fail-on: regression — passes; no comment, a summary', async () => {
    const before = api.requests.length
    const r = await run(
      'push',
      'push.json',
      gateInputs({
        baseline: 'baseline-noisy.json',
        'baseline-timings': 'gate',
        'results-dir': 'res-incon'
      })
    )
    expect(r.status, r.log).toBe(0)
    expect(r.outputs.verdict).toBe('inconclusive')
    // no comment: the push to main reads the commits before it (for main's
    // previous run), writes its run to the history, and that is all
    const mine = api.requests.slice(before)
    expect(
      mine.filter((q) => !q.path.includes('/git/') && !/\/commits\?sha=/.test(q.path))
    ).toEqual([])
    expect(mine.filter((q) => q.method === 'PATCH')).toHaveLength(1)
    expect(r.log).toMatch(/History: this run written to branch 'afpbench-data'/)
    expect(r.summary).toMatch(/inconclusive/)
    expect(r.log).toMatch(/No pull request comment: a push event has no pull request/)
  })

  it('inconclusive with fail-on: inconclusive — fails the step', async () => {
    const r = await run(
      'pull_request',
      'pull_request.json',
      gateInputs({
        baseline: 'baseline-noisy.json',
        'baseline-timings': 'gate',
        'fail-on': 'inconclusive',
        comment: 'never',
        'results-dir': 'res-incon-fail'
      })
    )
    expect(r.status, r.log).toBe(1)
    expect(r.outputs.verdict).toBe('inconclusive')
    expect(r.log).toMatch(/::error::afpbench verdict: inconclusive/)
  })

  it('timings against a stored baseline are shown by default: the noisy baseline passes', async () => {
    const r = await run(
      'pull_request',
      'pull_request.json',
      gateInputs({
        baseline: 'baseline-noisy.json',
        'fail-on': 'inconclusive',
        comment: 'never',
        'results-dir': 'res-incon-shown'
      })
    )
    expect(r.status, r.log).toBe(0)
    expect(r.outputs.verdict).toBe('pass')
    const verdict = JSON.parse(
      readFileSync(path.join(workspace, 'res-incon-shown', 'verdict.json'), 'utf8')
    ) as { timings: string; rows: Array<{ kind: string; state: string }> }
    expect(verdict.timings).toBe('shown')
    const timing = verdict.rows.filter((row) => row.kind === 'time')
    expect(timing.length).toBeGreaterThan(0)
    expect(timing.every((row) => row.state === 'info')).toBe(true)
  })

  it('fork pull_request — runs the gate, writes the summary, only reads the history', async () => {
    const before = api.requests.length
    const r = await run(
      'pull_request',
      'pull_request_fork.json',
      gateInputs({
        baseline: 'baseline.json',
        'time-threshold': '1000',
        'results-dir': 'res-fork',
        // a fork's read-only token makes none: the writes below stay none
        'check-run': 'true'
      })
    )
    expect(r.status, r.log).toBe(0)
    expect(r.outputs.verdict).toBe('pass')
    // reads of the history branch and of the merge-base (compare, commits),
    // nothing else (its token is read-only)
    const mine = api.requests.slice(before)
    expect(mine.length).toBeGreaterThan(0)
    expect(
      mine.filter(
        (q) => q.method !== 'GET' || !/^\/repos\/[^/]+\/[^/]+\/(git|compare|commits)\b/.test(q.path)
      )
    ).toEqual([])
    expect(r.summary).toMatch(/fork mona\/afp-server/)
    // nothing can be committed: a line says where the charts are, no text charts
    expect(r.summary).toMatch(/\*\*Charts\*\* \([^)]*\): in the results artifact/)
    expect(r.summary).not.toContain('```text')
    expect(r.log).toMatch(/::notice::.*mode: publish/)
    expect(r.outputs['comment-url']).toBe('')
  })

  it('mode: publish in a workflow_run — posts the fork run’s results on its PR after checking the head', async () => {
    api.pullHeads.set(43, FORK_HEAD)
    const r = await run('workflow_run', 'workflow_run_fork.json', {
      mode: 'publish',
      'results-dir': 'res-fork'
      // github-token: the default, ${{ github.token }}, which the runner fills in
    })
    expect(r.status, r.log).toBe(0)
    expect(r.outputs.verdict).toBe('pass')
    expect(api.requests.some((q) => q.method === 'GET' && q.path.endsWith('/pulls/43'))).toBe(true)
    const onFork = api.comments.filter((c) => c.issue === 43)
    expect(onFork).toHaveLength(1)
    expect(r.outputs['comment-url']).toContain('/pull/43#issuecomment-')
  })

  it('mode: publish with slices — a matrix fan-in: one comment, the worst slice decides, a missing slice named', async () => {
    // Three jobs' artifacts as download-artifact writes them: one directory
    // each. Two are the real runs above; the third has not arrived yet.
    const dir = path.join(workspace, 'matrix')
    cpSync(path.join(workspace, 'res-pass'), path.join(dir, 'afpbench-dbd'), { recursive: true })
    cpSync(path.join(workspace, 'res-fail'), path.join(dir, 'afpbench-sqlite'), {
      recursive: true
    })
    const inputs = {
      mode: 'publish',
      'results-dir': 'matrix',
      slices: 'afpbench-dbd, afpbench-sqlite, afpbench-ad',
      'comment-key': 'matrix',
      'fail-on': 'never',
      'github-token': TOKEN
    }
    const mine = () =>
      api.comments.filter((c) => c.body.startsWith('<!-- afpbench-action:report key=matrix -->'))
    const r = await run('pull_request', 'pull_request.json', inputs)
    // a missing slice is an error, which fails the step whatever fail-on says
    expect(r.status, r.log).toBe(1)
    expect(r.outputs.verdict).toBe('error')
    expect(mine()).toHaveLength(1)
    const body = mine()[0].body
    expect(body).toMatch(
      /afpbench: \*\*error\*\* — 1 of 3 slices in error: afpbench-ad; 1 failed, 1 passed/
    )
    expect(body).toMatch(
      /\| afpbench-ad \| ⛔ error \| no results: the job failed before it measured/
    )
    // the failed slice's row says what decided it: its own report's headline
    const failHeadline = readFileSync(path.join(workspace, 'res-fail', 'report.md'), 'utf8')
      .split('\n')
      .find((l) => l.includes('afpbench: '))
      ?.split(' — ')[1]
      ?.trim()
    expect(failHeadline).toBeTruthy()
    expect(body).toContain(`| afpbench-sqlite | ❌ fail | ${failHeadline} |`)
    // every slice folded: the table says what decided each
    expect(body).toContain('<details><summary>❌ <b>afpbench-sqlite</b>: fail</summary>')
    expect(body).not.toContain('<details open>')
    expect(r.summary).toMatch(/afpbench-ad/)

    // The third arrives: the worst of pass, fail and inconclusive is fail; the
    // same comment is updated.
    cpSync(path.join(workspace, 'res-incon'), path.join(dir, 'afpbench-ad'), { recursive: true })
    const again = await run('pull_request', 'pull_request.json', {
      ...inputs,
      'fail-on': 'regression'
    })
    expect(again.status, again.log).toBe(1)
    expect(again.outputs.verdict).toBe('fail')
    expect(JSON.parse(again.outputs['regressed-metrics'])).toContain(
      'afpbench-sqlite: aggregate.afpd_net_w_per_op'
    )
    expect(mine()).toHaveLength(1)
    expect(mine()[0].body).toMatch(
      /1 of 3 slices failed: afpbench-sqlite; 1 inconclusive, 1 passed/
    )
    expect(again.log).toMatch(
      /Merged 3 slices: afpbench-dbd pass, afpbench-sqlite fail, afpbench-ad inconclusive/
    )
  })

  it('a 403 from the API is reported, not a crash', async () => {
    api.denyWith = 403
    try {
      const r = await run(
        'pull_request',
        'pull_request.json',
        gateInputs({
          baseline: 'baseline.json',
          'time-threshold': '1000',
          'io-threshold': '10',
          'results-dir': 'res-403'
        })
      )
      expect(r.status, r.log).toBe(0)
      expect(r.outputs.verdict).toBe('pass')
      expect(r.log).toMatch(
        /::warning::Could not post the pull request comment on #42: HTTP 403.*pull-requests: write/
      )
      expect(r.log).toMatch(/::warning::Could not commit the chart images.*HTTP 403/)
      expect(r.summary).toMatch(
        /\*\*Charts\*\* .*could not be committed to branch 'afpbench-assets' \(HTTP 403\)/
      )
      expect(r.outputs['comment-url']).toBe('')
    } finally {
      api.denyWith = null
    }
  })

  it('an unreachable server is an error verdict that fails the step even with fail-on: never', async () => {
    const r = await run(
      'pull_request',
      'pull_request.json',
      gateInputs({
        server: `127.0.0.1:${e2ePort(9)}`, // nothing listens there
        'fail-on': 'never',
        comment: 'never',
        'results-dir': 'res-error'
      })
    )
    expect(r.status, r.log).toBe(1)
    expect(r.outputs.verdict).toBe('error')
    expect(r.log).toMatch(/::error::afpbench verdict: error/)
  })

  it('a bad input stops the step before anything runs, naming the input', async () => {
    const before = api.requests.length
    const r = await run(
      'pull_request',
      'pull_request.json',
      gateInputs({ 'time-threshold': 'ten', 'results-dir': 'res-bad' })
    )
    expect(r.status).toBe(1)
    expect(r.log).toMatch(/::error::input 'time-threshold': 'ten' is not a percentage/)
    expect(existsSync(path.join(workspace, 'res-bad'))).toBe(false)
    expect(api.requests.length).toBe(before)
  })

  it('a run that stops before the gate measures publishes its own error, never the results an earlier run left', async () => {
    // results-dir holds a complete earlier run (the pass case's), an hour old,
    // its report marked so that a re-post would show
    const stale = path.join(workspace, 'res-stale')
    cpSync(path.join(workspace, 'res-pass'), stale, { recursive: true })
    appendFileSync(path.join(stale, 'report.md'), '\nSTALE-REPORT-MARKER\n')
    const hourAgo = new Date(Date.now() - 3600_000)
    for (const f of readdirSync(stale, { recursive: true, encoding: 'utf8' }))
      utimesSync(path.join(stale, f), hourAgo, hourAgo)
    const before = api.requests.length
    // server: compose with no Docker on PATH: the gate never starts
    const r = await run(
      'pull_request',
      'pull_request.json',
      { ...gateInputs({ 'results-dir': 'res-stale' }), server: 'compose', 'proc-io': '' },
      { env: { PATH: '/nonexistent:/bin' } }
    )
    expect(r.status, r.log).toBe(1)
    expect(r.outputs.verdict, r.log).toBe('error')
    expect(r.outputs.report ?? '').toBe('')
    expect(r.log).toMatch(
      /holds an earlier run's results: this run wrote none, so they are not published/
    )
    const mine = api.requests.slice(before)
    const posted = mine.filter((q) => q.path.includes('/comments') && q.method !== 'GET')
    expect(posted).toHaveLength(1)
    const body = JSON.stringify(posted[0].body)
    expect(body).not.toContain('STALE-REPORT-MARKER')
    // the report's headline style, the cause in it
    expect(body).toMatch(/### ⛔ afpbench: \*\*error\*\* — server: compose needs Docker/)
    // no charts of the earlier run were committed (the history was read)
    expect(mine.filter((q) => q.path.includes('/git/') && q.method !== 'GET')).toEqual([])
  })

  it('the post step has nothing to tear down in host:port mode', async () => {
    const r = await runAction({
      entry: 'post',
      inputs: {},
      eventName: 'pull_request',
      eventFile: 'pull_request.json',
      workspace,
      apiUrl: api.url
    })
    expect(r.status).toBe(0)
    expect(r.log).toMatch(/No compose stack was started/)
  })
})
