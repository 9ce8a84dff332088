// End to end: a repository's first run (issue 12). The README's workflow names
// `baseline: .github/afpbench/baseline.json`, which a new repository does not
// have yet: the step must succeed, measuring without comparing (pass), and the
// comment must say how to make that file. The committed dist/ bundle runs as
// GitHub runs it, against a REAL netatalk server (scripts/local-server); what
// cannot exist here is stood in for: GitHub's REST API and the job's artifact
// service (fake-github.ts), so the upload really runs through @actions/artifact
// and the comment links the artifact by the id the service returned.

import { existsSync, mkdtempSync, readFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { FakeGitHubServer } from './fake-github.js'
import {
  e2ePort,
  requireE2ePrerequisites,
  runAction,
  startLocalServer,
  stopLocalServer,
  type ActionRun,
  type ServerSettings
} from './harness.js'

const PORT = e2ePort(4) // 10594 (AFPBENCH_E2E_PORT=10630: 10634)
const PASSWORD = 'f1rstRun' // not the default, so the action must mask it
const TOKEN = 'ghs_firstRunTokenThatMustNeverBePrinted'
const BASELINE = '.github/afpbench/baseline.json' // as the README's workflow names it

let server: ServerSettings
let first: ActionRun
const api = new FakeGitHubServer()
// A fresh repository: nothing in it, no .github/afpbench/ at all.
const workspace = mkdtempSync(path.join(os.tmpdir(), 'afpbench-e2e-first-'))

beforeAll(async () => {
  requireE2ePrerequisites()
  await api.start()
  server = startLocalServer(PORT, PASSWORD)
  first = await runAction({
    // The README's inputs (baseline; the rest default), plus what this machine
    // needs: no Docker, so the server is the local one, and a short run.
    inputs: {
      baseline: BASELINE,
      server: `${server.host}:${server.port}`,
      'proc-io': server.procIo,
      'afp-user': server.user,
      'afp-password': server.password,
      volume: server.share,
      tests: '4',
      iterations: '2'
    },
    eventName: 'pull_request',
    eventFile: 'pull_request.json',
    workspace,
    apiUrl: api.url,
    jobToken: TOKEN,
    env: api.artifactEnv()
  })
})

afterAll(async () => {
  stopLocalServer(PORT)
  await api.stop()
})

describe('a fresh repository: the README workflow without a baseline file', () => {
  it('succeeds measuring only: pass, a notice, one comment, the artifact linked', () => {
    const r = first
    expect(r.status, r.log).toBe(0)
    expect(r.outputs.verdict).toBe('pass')
    expect(r.outputs.summary).toMatch(/no baseline, nothing compared/)
    expect(r.log).toMatch(
      /::notice::input 'baseline': \.github\/afpbench\/baseline\.json does not exist yet.*mode: baseline \(baseline: \.github\/afpbench\/baseline\.json\)/
    )
    expect(r.log).not.toMatch(/::error::/)
    // measured without comparing: no bundled default baseline either
    const verdict = JSON.parse(
      readFileSync(path.join(workspace, 'afpbench-results', 'verdict.json'), 'utf8')
    ) as { status: string; baseline?: unknown }
    expect(verdict.status).toBe('pass')
    expect(existsSync(path.join(workspace, BASELINE))).toBe(false)

    // the results went up through @actions/artifact to the stand-in service
    expect(api.artifacts).toHaveLength(1)
    const artifact = api.artifacts[0]
    expect(artifact).toMatchObject({ name: 'afpbench-results', finalized: true })
    expect(artifact.zip.subarray(0, 2).toString('latin1')).toBe('PK') // a zip
    expect(r.outputs['artifact-id']).toBe(String(artifact.id))

    expect(api.comments).toHaveLength(1)
    const body = api.comments[0].body
    expect(body.split('\n')[0]).toBe('<!-- afpbench-action:report -->')
    const runId = /\/actions\/runs\/(\d+)\)/.exec(body)?.[1]
    expect(runId).toBeDefined()
    expect(body).toContain(
      `[results artifact](https://github.com/octo-org/afp-server/actions/runs/${runId}/artifacts/${artifact.id})`
    )
    for (const secret of [TOKEN, PASSWORD]) {
      expect(body).not.toContain(secret)
      expect(
        r.log.split('\n').filter((l) => l.includes(secret) && !l.startsWith('::add-mask::'))
      ).toEqual([])
    }
  })

  // scripts/report renders AFPBENCH_BASELINE_MISSING as a section starting
  // "**No baseline yet:**", right under the verdict.
  it('the comment says how to make the baseline from the repository: the action in baseline mode', () => {
    const body = api.comments[0]?.body ?? ''
    const section = body.split('\n').find((l) => l.startsWith('**No baseline yet:**'))
    expect(section, body).toBeDefined()
    expect(section).toContain(`\`${BASELINE}\``)
    expect(body).toContain(
      `- uses: afpbench/afpbench-action@v1\n  with:\n    mode: baseline\n    baseline: "${BASELINE}"\n`
    )
    // nothing that only runs inside a checkout of afpbench-action
    expect(
      body.slice(body.indexOf('**No baseline yet:**'), body.indexOf('**Per AFP op**'))
    ).not.toContain('scripts/')
  })

  it('a baseline path outside the workspace that does not exist is still an input error', async () => {
    const r = await runAction({
      inputs: { baseline: '../elsewhere/baseline.json', server: `${server.host}:${server.port}` },
      eventName: 'pull_request',
      eventFile: 'pull_request.json',
      workspace,
      apiUrl: api.url,
      jobToken: TOKEN
    })
    expect(r.status).not.toBe(0)
    expect(r.log).toMatch(
      /::error::input 'baseline': file '\.\.\/elsewhere\/baseline\.json' does not exist/
    )
    expect(api.comments).toHaveLength(1) // nothing new posted
  })
})
