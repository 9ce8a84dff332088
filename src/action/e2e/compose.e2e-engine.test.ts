// End to end in the action's default mode, server: compose, on a REAL Docker
// Engine: the committed dist/ bundle, run as GitHub runs it, builds the images
// from compose.yaml, starts the netatalk server with `up --wait`, runs the
// client container (the gate), publishes to the fake GitHub API, and its post
// step tears the stack down. Only GitHub's REST API is stood in for.
//
// Needs an engine: DOCKER_HOST (and DOCKER_CONFIG for the compose plugin), as
// `scripts/test-all compose` sets them after `scripts/docker-engine start`, and
// BASE_IMAGE naming a base image the engine has (the machines reach no
// registry). Without one this test FAILS: it never skips.

import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { FakeGitHubServer } from './fake-github.js'
import { docker, requireE2ePrerequisites, runAction, runPostStep, savedState } from './harness.js'

const TOKEN = 'ghs_e2eComposeTokenNeverPrinted'
const PASSWORD = 'cmpSecr8'
const api = new FakeGitHubServer()
// What the job's environment gives the action: the engine and the base image.
const engineEnv: Record<string, string> = {}
for (const name of ['DOCKER_HOST', 'DOCKER_CONFIG', 'BASE_IMAGE'])
  if (process.env[name]) engineEnv[name] = process.env[name] ?? ''
const workspace = mkdtempSync(path.join(os.tmpdir(), 'afpbench-e2e-compose-'))

beforeAll(async () => {
  requireE2ePrerequisites()
  const engine = docker(['version', '--format', '{{.Server.Version}}'])
  if (engine.status !== 0)
    throw new Error(
      'the compose-mode e2e needs a Docker engine (DOCKER_HOST; `scripts/test-all compose` ' +
        `starts one with scripts/docker-engine): ${engine.out.trim()}`
    )
  const base = process.env.BASE_IMAGE ?? ''
  if (base === '' || docker(['image', 'inspect', base]).status !== 0)
    throw new Error(
      `BASE_IMAGE='${base}' is not an image of this engine: the machines reach no registry, ` +
        'so the base must be imported first (scripts/tests/compose_engine.bats does)'
    )
  await api.start()
  // The server's CPU time per op is a timing with its own threshold; these
  // runs are about the path, not about timings.
  writeFileSync(
    path.join(workspace, 'wide.json'),
    JSON.stringify({ schema: 'afpbench-thresholds/1', defaults: { cpu: 1000 } })
  )
})

afterAll(async () => {
  await api.stop()
})

describe('server: compose on a real Docker Engine, as GitHub runs the action', () => {
  it('pull_request: builds, starts the server, gates in the client, comments, tears down', async () => {
    const start = Date.now()
    const r = await runAction({
      inputs: {
        tests: '4,10',
        iterations: '2',
        'afp-password': PASSWORD,
        thresholds: 'wide.json',
        'time-threshold': '1000',
        'io-threshold': '10',
        'fail-on': 'never',
        'results-dir': 'res-compose',
        'github-token': TOKEN
      },
      eventName: 'pull_request',
      eventFile: 'pull_request.json',
      workspace,
      apiUrl: api.url,
      jobToken: TOKEN,
      env: engineEnv
    })
    const mainSeconds = (Date.now() - start) / 1000
    expect(r.status, r.log).toBe(0)
    // It checked the engine, built and started the stack the compose way.
    expect(r.log).toMatch(/Docker Engine \d+\.\d+\S*, Compose \d+\.\d+/)
    expect(r.log).toMatch(/::group::Build the server and client images/)
    expect(r.log).toMatch(/::group::Start the netatalk server/)
    expect(r.log).toMatch(/server-1\s+Healthy/)
    expect(r.log).toMatch(/::group::Run the benchmark gate \(client container\)/)
    // A real measurement with IO monitoring, against the bundled baseline.
    expect(['pass', 'fail', 'inconclusive']).toContain(r.outputs.verdict)
    expect(Number(r.outputs['writes-per-op-ratio'])).toBeGreaterThan(0)
    const results = path.join(workspace, 'res-compose')
    const json = JSON.parse(readFileSync(path.join(results, 'results.json'), 'utf8')) as {
      runs: Array<{ io_monitoring: { enabled: boolean } }>
    }
    expect(json.runs[0].io_monitoring.enabled).toBe(true)
    // The results belong to the runner's user, not to the client's root.
    expect(statSync(path.join(results, 'verdict.json')).uid).toBe(process.getuid?.())
    // One sticky comment on the pull request; no secret anywhere.
    expect(api.comments).toHaveLength(1)
    expect(api.comments[0].body.split('\n')[0]).toBe('<!-- afpbench-action:report -->')
    for (const secret of [TOKEN, PASSWORD])
      expect(
        r.log.split('\n').filter((l) => l.includes(secret) && !l.startsWith('::add-mask::'))
      ).toEqual([])

    // The post step, with the state the main step saved, removes the stack.
    const project = savedState(r, 'compose-project')
    expect(project).toMatch(/^afpbench-/)
    expect(
      docker([
        'ps',
        '-a',
        '-q',
        '--filter',
        `label=com.docker.compose.project=${project}`
      ]).out.trim()
    ).not.toBe('')
    expect(savedState(r, 'compose-file')).toMatch(/compose\.yaml$/)
    const post = await runPostStep(r, {
      eventName: 'pull_request',
      eventFile: 'pull_request.json',
      workspace,
      apiUrl: api.url,
      env: engineEnv
    })
    expect(post.status, post.log).toBe(0)
    expect(post.log).toMatch(/Tear down the compose stack/)
    expect(
      docker([
        'ps',
        '-a',
        '-q',
        '--filter',
        `label=com.docker.compose.project=${project}`
      ]).out.trim()
    ).toBe('')
    const seconds = (Date.now() - start) / 1000
    console.log(
      `# server: compose action run: main step ${mainSeconds.toFixed(0)} s, with the post step ${seconds.toFixed(0)} s`
    )
  })

  it('release, mode: baseline: two sessions, each on a fresh server, pooled; built once', async () => {
    const r = await runAction({
      inputs: {
        mode: 'baseline',
        baseline: 'release-baseline.json',
        tests: '4',
        iterations: '1',
        'afp-password': PASSWORD,
        'results-dir': 'res-release',
        'github-token': TOKEN
      },
      eventName: 'release',
      eventFile: 'release.json',
      workspace,
      apiUrl: api.url,
      jobToken: TOKEN,
      env: engineEnv
    })
    expect(r.status, r.log).toBe(0)
    expect(r.log.match(/::group::Build the server and client images/g)).toHaveLength(1)
    expect(r.log).toContain('::group::Start the netatalk server, afresh for session 2')
    // compose replaced the first session's server container
    expect(r.log).toMatch(/server-1\s+Recreate/)
    const baseline = JSON.parse(
      readFileSync(path.join(workspace, 'release-baseline.json'), 'utf8')
    ) as { tests: Array<{ key: string; samples: Array<{ run: number }> }> }
    const t4 = baseline.tests.find((t) => t.key === 'lantest.4')
    expect(t4?.samples.map((x) => x.run)).toEqual([0, 1])
    // the release's run went to the history, kept apart
    expect(r.log).toMatch(/History: this run written to branch 'afpbench-data'/)
    const post = await runPostStep(r, {
      eventName: 'release',
      eventFile: 'release.json',
      workspace,
      apiUrl: api.url,
      env: engineEnv
    })
    expect(post.status, post.log).toBe(0)
  })
})
