import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { listCharts } from './charts.js'
import { describeEvent, readEventPayload } from './event.js'
import type { Config } from './inputs.js'
import {
  CHARTS_MARKER,
  CHARTS_MARKER_FOLDED,
  REPORT_MARKER,
  TREND_MARKER,
  TREND_MARKER_FOLDED
} from './names.js'
import {
  defuseMentions,
  placeCharts,
  placeTrend,
  publish,
  type Logger,
  type PublishInput
} from './publish.js'
import { isTrendChart, trendMarkdown } from './charts.js'
import type { ResultsContext } from './results-context.js'
import { testConfig } from './testing/config.js'
import { FakeGitHub } from './testing/fake-api.js'

const REPO = 'octo-org/afp-server'
const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex')

function resultsDir(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'publish-'))
  mkdirSync(path.join(dir, 'charts'))
  writeFileSync(path.join(dir, 'charts', 'lantest_time.png'), PNG)
  writeFileSync(path.join(dir, 'charts', 'lantest_time.svg'), '<svg/>')
  writeFileSync(path.join(dir, 'charts', 'lantest_time.txt'), '  1.2 +----+\n      | ** |\n')
  writeFileSync(path.join(dir, 'charts', 'bad name.png'), PNG)
  writeFileSync(path.join(dir, 'charts', '.hidden.png'), PNG)
  return dir
}

function event(file: string, name = file.replace(/(_fork)?\.json$/, '')) {
  return describeEvent(
    name,
    readEventPayload(path.join(import.meta.dirname, 'fixtures', 'events', file)),
    REPO,
    'f'.repeat(40)
  )
}

class RecordingLog implements Logger {
  infos: string[] = []
  warnings: string[] = []
  notices: string[] = []
  info(m: string): void {
    this.infos.push(m)
  }
  warning(m: string): void {
    this.warnings.push(m)
  }
  notice(m: string): void {
    this.notices.push(m)
  }
}

function input(over: Partial<PublishInput> & { config?: Config } = {}): PublishInput {
  return {
    config: testConfig(),
    event: event('pull_request.json'),
    status: 'fail',
    report: `${REPORT_MARKER}\n## afpbench: fail\n\nafpd writes per AFP op grew.\n`,
    fullReport: `${REPORT_MARKER}\n## afpbench: fail\n\nafpd writes per AFP op grew.\n\nEvery row.\n`,
    charts: listCharts(path.join(resultsDir(), 'charts')),
    plan: '',
    runUrl: 'https://github.com/octo-org/afp-server/actions/runs/1',
    artifactUrl: '',
    serverUrl: 'https://github.com',
    resultsContext: null,
    ...over
  }
}

describe('publish on a same-repository pull request', () => {
  it('commits the chart images to the orphan assets branch and links them by commit SHA', async () => {
    const gh = new FakeGitHub()
    const log = new RecordingLog()
    const res = await publish(input(), gh, log)
    // Only safe names, PNG preferred over SVG.
    expect(gh.callsTo('createBlob')).toHaveLength(1)
    expect(gh.trees.get('tree1')?.map((f) => f.path)).toEqual(['charts/lantest_time.png'])
    expect(gh.commits.get('commit1')?.parents).toEqual([]) // orphan: no parent
    expect(gh.branches.get('afpbench-assets')).toBe('commit1')
    const body = [...gh.comments.values()][0].body
    expect(body.split('\n')[0]).toBe(REPORT_MARKER)
    expect(body).toContain(
      '![lantest time](https://github.com/octo-org/afp-server/blob/commit1/charts/lantest_time.png?raw=true)'
    )
    expect(body).not.toContain('```text')
    expect(body).toContain('[workflow run](https://github.com/octo-org/afp-server/actions/runs/1)')
    expect(res.commentUrl).toMatch(/#issuecomment-/)
    expect(res.summary).toContain('![lantest time]')
    expect(log.warnings).toEqual([])
  })

  it("commits the run's plan with the charts; the reproduce and refresh commands fetch it from there", async () => {
    const gh = new FakeGitHub()
    const plan = path.join(mkdtempSync(path.join(os.tmpdir(), 'plan-')), 'plan.json')
    writeFileSync(plan, '{"schema":"afpbench-plan/2"}\n')
    const report = [
      REPORT_MARKER,
      '### ❌ afpbench: **fail** — x',
      'refresh it with `scripts/run-gate --make-baseline b.json --plan plan.json`',
      '```sh',
      'scripts/run-gate --native --plan plan.json',
      '```',
      "`plan.json` is in this run's results (the artifact)."
    ].join('\n')
    await publish(input({ plan, report }), gh, new RecordingLog())
    expect(gh.trees.get('tree1')?.map((f) => f.path)).toEqual([
      'charts/lantest_time.png',
      'plan.json'
    ])
    const url = 'https://github.com/octo-org/afp-server/raw/commit1/plan.json'
    const body = [...gh.comments.values()][0].body
    expect(body).toContain(`scripts/run-gate --native --plan '${url}'`)
    expect(body).toContain(`--make-baseline b.json --plan '${url}'`)
    expect(body).toContain(`The plan: [plan.json](${url}), committed with the charts.`)
    expect(body).not.toContain('--plan plan.json')
  })

  it('the footer links the results artifact itself when one was uploaded, and only then', async () => {
    const url = 'https://github.com/octo-org/afp-server/actions/runs/1/artifacts/4242'
    const gh = new FakeGitHub()
    await publish(input({ artifactUrl: url }), gh, new RecordingLog())
    const body = [...gh.comments.values()][0].body
    expect(body).toContain(
      `<sub>afpbench-action · [workflow run](https://github.com/octo-org/afp-server/actions/runs/1) · [results artifact](${url})</sub>`
    )
    const none = new FakeGitHub()
    await publish(input(), none, new RecordingLog())
    const plain = [...none.comments.values()][0].body
    expect(plain).toContain('[workflow run](https://github.com/octo-org/afp-server/actions/runs/1)')
    expect(plain).not.toContain('artifact')
  })

  it('a second run updates the same comment; its charts commit has the previous tip as parent', async () => {
    const gh = new FakeGitHub()
    const log = new RecordingLog()
    await publish(input(), gh, log)
    await publish(
      input({ status: 'pass', report: `${REPORT_MARKER}\n## afpbench: pass\n` }),
      gh,
      log
    )
    expect(gh.comments.size).toBe(1)
    expect(gh.callsTo('createComment')).toHaveLength(1)
    expect(gh.callsTo('updateComment')).toHaveLength(1)
    expect([...gh.comments.values()][0].body).toContain('## afpbench: pass')
    expect(gh.commits.get('commit2')?.parents).toEqual(['commit1'])
    expect(gh.branches.get('afpbench-assets')).toBe('commit2')
  })

  it('retries the branch update when another job moved it first (422)', async () => {
    const gh = new FakeGitHub()
    gh.branches.set('afpbench-assets', 'commit0')
    gh.commits.set('commit0', { message: 'older', tree: 't', parents: [] })
    gh.failures.set('moveBranch', [422])
    await publish(input(), gh, new RecordingLog())
    expect(gh.callsTo('moveBranch')).toHaveLength(2)
    expect(gh.callsTo('createComment')).toHaveLength(1)
  })

  it('says where the charts are when they cannot be committed (403)', async () => {
    const gh = new FakeGitHub()
    gh.failures.set('createBlob', 403)
    const log = new RecordingLog()
    await publish(input(), gh, log)
    const body = [...gh.comments.values()][0].body
    expect(body).toMatch(
      /\*\*Charts\*\* \([^)]*\): in the results artifact .*could not be committed to branch 'afpbench-assets' \(HTTP 403\)/
    )
    expect(body).not.toContain('```text')
    expect(body).not.toContain('![')
    expect(log.warnings.join()).toMatch(
      /Could not commit the chart images.*HTTP 403.*contents: write/
    )
  })

  it('assets-branch empty: a line saying where the charts are, no git calls', async () => {
    const gh = new FakeGitHub()
    await publish(input({ config: testConfig({ assetsBranch: '' }) }), gh, new RecordingLog())
    expect(gh.callsTo('createBlob')).toHaveLength(0)
    const body = [...gh.comments.values()][0].body
    expect(body).toMatch(/\*\*Charts\*\* .*assets-branch is empty, so they are not committed/)
    expect(body).not.toContain('```text')
  })

  it('reports a 403 on the comment as a warning, and still returns the summary', async () => {
    const gh = new FakeGitHub()
    gh.failures.set('createComment', 403)
    const log = new RecordingLog()
    const res = await publish(input({ config: testConfig({ assetsBranch: '' }) }), gh, log)
    expect(res.commentUrl).toBe('')
    expect(res.summary).toContain('## afpbench: fail')
    expect(log.warnings).toHaveLength(1)
    expect(log.warnings[0]).toMatch(
      /Could not post the pull request comment on #42: HTTP 403.*pull-requests: write/
    )
  })

  it('on-change and a pass with no earlier comment: no comment and no chart commit', async () => {
    const gh = new FakeGitHub()
    await publish(
      input({ status: 'pass', config: testConfig({ comment: 'on-change' }) }),
      gh,
      new RecordingLog()
    )
    expect(gh.callsTo('createComment')).toHaveLength(0)
    expect(gh.callsTo('createBlob')).toHaveLength(0)
  })

  it('comment-key: a separate sticky comment', async () => {
    const gh = new FakeGitHub()
    await publish(input({ config: testConfig({ assetsBranch: '' }) }), gh, new RecordingLog())
    await publish(
      input({ config: testConfig({ assetsBranch: '', commentKey: 'afp3.3' }) }),
      gh,
      new RecordingLog()
    )
    expect(gh.comments.size).toBe(2)
  })
})

describe('publish without a writable pull request', () => {
  it('a fork PR: no API call, the summary says where the charts are and how to publish', async () => {
    const gh = new FakeGitHub()
    const log = new RecordingLog()
    const res = await publish(input({ event: event('pull_request_fork.json') }), gh, log)
    expect(gh.calls).toEqual([])
    expect(res.summary).toMatch(/\*\*Charts\*\* \([^)]*\): in the results artifact/)
    expect(res.summary).toMatch(
      /fork mona\/afp-server.*artifact 'afpbench-results'.*workflow_run.*mode: publish/s
    )
    expect(log.notices.join()).toMatch(/mode: publish/)
  })

  it.each(['push.json', 'release.json'])('a %s event: no comment, a summary', async (file) => {
    const gh = new FakeGitHub()
    const log = new RecordingLog()
    const res = await publish(input({ event: event(file) }), gh, log)
    expect(gh.calls).toEqual([])
    expect(res.summary).toContain('## afpbench: fail')
    expect(log.infos.join()).toMatch(/has no pull request/)
  })

  it('no token: no API call', async () => {
    const log = new RecordingLog()
    await publish(input(), null, log)
    expect(log.infos.join()).toMatch(/no 'github-token'/)
  })

  it('baseline mode does not comment', async () => {
    const gh = new FakeGitHub()
    await publish(input({ config: testConfig({ mode: 'baseline' }) }), gh, new RecordingLog())
    expect(gh.calls).toEqual([])
  })
})

describe('mode: publish from a workflow_run', () => {
  const ctx = (pull: number | null): ResultsContext => ({
    schema: 'afpbench-action-context/1',
    repository: REPO,
    event: 'pull_request',
    pull_request: pull,
    head_sha: 'c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00',
    fork: true,
    run_id: 30433642
  })
  const publishInput = (pull: number | null, report?: string): PublishInput =>
    input({
      config: testConfig({ mode: 'publish' }),
      event: event('workflow_run_fork.json', 'workflow_run'),
      resultsContext: ctx(pull),
      ...(report ? { report } : {})
    })

  it('comments on the PR named by the results when its head is the measured commit', async () => {
    const gh = new FakeGitHub()
    gh.pullHeads.set(43, 'c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00')
    const res = await publish(
      publishInput(43, `${REPORT_MARKER}\ncc @maintainer\n`),
      gh,
      new RecordingLog()
    )
    expect(res.commentUrl).not.toBe('')
    const body = [...gh.comments.values()][0].body
    expect(body).toContain('cc @\u200bmaintainer')
    expect([...gh.comments.values()][0].issue).toBe(43)
  })

  it('refuses a PR whose head is another commit (results naming someone else’s PR)', async () => {
    const gh = new FakeGitHub()
    gh.pullHeads.set(7, '1111111111111111111111111111111111111111')
    const log = new RecordingLog()
    await publish(publishInput(7), gh, log)
    expect(gh.callsTo('createComment')).toHaveLength(0)
    expect(log.infos.join()).toMatch(
      /#7 is at 111111111111, not at the measured commit c0ffee00c0ff/
    )
  })

  it('no PR number anywhere: no comment', async () => {
    const gh = new FakeGitHub()
    const log = new RecordingLog()
    await publish(publishInput(null), gh, log)
    expect(gh.calls).toEqual([])
    expect(log.infos.join()).toMatch(/name a pull request/)
  })

  it('gate mode in a workflow_run does not comment', async () => {
    const gh = new FakeGitHub()
    await publish(
      input({ event: event('workflow_run_fork.json', 'workflow_run') }),
      gh,
      new RecordingLog()
    )
    expect(gh.calls).toEqual([])
  })
})

describe('defuseMentions', () => {
  it('breaks @mentions and leaves e-mail-like text readable', () => {
    expect(defuseMentions('@octo-org/team and a@b')).toBe('@\u200bocto-org/team and a@\u200bb')
    expect(defuseMentions('50 @ 3 ms')).toBe('50 @ 3 ms')
  })
})

describe('the charts in the report', () => {
  it('go at the charts marker, above the folded details, and the marker line goes', async () => {
    const gh = new FakeGitHub()
    const report = `${REPORT_MARKER}\n### verdict\n\ntable\n${CHARTS_MARKER}\n\n<details>env</details>\n`
    await publish(input({ report }), gh, new RecordingLog())
    const body = [...gh.comments.values()][0].body
    const image = body.indexOf('![')
    expect(image).toBeGreaterThan(body.indexOf('table'))
    expect(image).toBeLessThan(body.indexOf('<details>'))
    expect(body).not.toContain(CHARTS_MARKER)
  })

  it('go after a report without the marker; the job summary is the full report', async () => {
    const gh = new FakeGitHub()
    const res = await publish(input(), gh, new RecordingLog())
    const body = [...gh.comments.values()][0].body
    expect(body.indexOf('![')).toBeGreaterThan(body.indexOf('grew.'))
    expect(res.summary).toContain('Every row.')
    expect(body).not.toContain('Every row.')
  })

  it('placeCharts drops the marker when there is nothing to place', () => {
    expect(placeCharts(`a\n${CHARTS_MARKER}\nb\n`, () => '')).toBe('a\nb')
    expect(placeCharts('a\n', () => '')).toBe('a')
  })

  it('placeCharts folds every chart where the report asks for it', () => {
    const charts = (folded: boolean): string => (folded ? 'FOLDED' : 'OPEN')
    expect(placeCharts(`a\n${CHARTS_MARKER}\nb`, charts)).toBe('a\nOPEN\nb')
    expect(placeCharts(`a\n${CHARTS_MARKER_FOLDED}\nb`, charts)).toBe('a\nFOLDED\nb')
    expect(placeCharts('a', charts)).toBe('a\n\nOPEN')
  })

  it('placeTrend puts the trend chart in the Trend section, and nowhere without one', () => {
    const chart = (folded: boolean): string => (folded ? 'FOLDED' : 'OPEN')
    expect(placeTrend(`a\n${TREND_MARKER}\nb`, chart)).toBe('a\nOPEN\nb')
    expect(placeTrend(`a\n${TREND_MARKER_FOLDED}\nb`, chart)).toBe('a\nFOLDED\nb')
    expect(placeTrend('a\nb', chart)).toBe('a\nb')
  })

  it('trendMarkdown: the image in view, or in a details block', () => {
    const links = [{ name: 'trend.png', url: 'https://x/trend.png' }]
    expect(trendMarkdown(links, false)).toBe('![trend](https://x/trend.png)\n')
    expect(trendMarkdown(links, true)).toBe(
      '<details><summary>Trend chart</summary>\n\n![trend](https://x/trend.png)\n\n</details>\n'
    )
    expect(trendMarkdown([], true)).toBe('')
    expect(isTrendChart('trend.png') && !isTrendChart('ratios.png')).toBe(true)
  })
})
