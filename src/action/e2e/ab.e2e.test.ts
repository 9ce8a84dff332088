// End to end, A/B: the committed dist/ bundle, run as GitHub runs it, gates a
// head server against a base server in one job (server + base-server inputs,
// host:port mode). Both are REAL netatalk servers from scripts/local-server;
// only GitHub's REST API is stood in for (fake-github.ts).
//
// The head serves 'ea = ad' (extended attributes in AppleDouble files, through
// local-server --afp-conf), the base netatalk's default: a settings change
// whose extra afpd reads and writes the A/B verdict must fail and name. The
// bundled default baseline must not reach the gate (A/B refuses a baseline).

import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
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

const HEAD_PORT = e2ePort(2) // 10592
const BASE_PORT = e2ePort(3) // 10593
const PASSWORD = 'abSecr8x'
const TOKEN = 'ghs_abTokenThatMustNeverBePrinted'

let head: ServerSettings
let base: ServerSettings
const api = new FakeGitHubServer()
const workspace = mkdtempSync(path.join(os.tmpdir(), 'afpbench-e2e-ab-'))

function abInputs(extra: Record<string, string>): Record<string, string> {
  return {
    server: `${head.host}:${head.port}`,
    'proc-io': head.procIo,
    'base-server': `${base.host}:${base.port}`,
    'base-proc-io': base.procIo,
    'afp-user': head.user,
    'afp-password': PASSWORD,
    volume: head.share,
    // Short: tests 4 (locking) and 9 (cache: directory listing), 5 pairs, the
    // fewest that give a paired interval.
    tests: '4,9',
    iterations: '5',
    'github-token': TOKEN,
    ...extra
  }
}

async function run(inputs: Record<string, string>): Promise<ActionRun> {
  const r = await runAction({
    inputs,
    eventName: 'pull_request',
    eventFile: 'pull_request.json',
    workspace,
    apiUrl: api.url,
    jobToken: TOKEN
  })
  for (const secret of [TOKEN, PASSWORD])
    expect(
      r.log.split('\n').filter((l) => l.includes(secret) && !l.startsWith('::add-mask::'))
    ).toEqual([])
  for (const req of api.requests) expect(JSON.stringify(req.body)).not.toContain(PASSWORD)
  return r
}

beforeAll(() => {
  requireE2ePrerequisites()
  const conf = path.join(workspace, 'head-afp.conf')
  writeFileSync(conf, '[Global]\n[File Sharing]\nea = ad\n')
  base = startLocalServer(BASE_PORT, PASSWORD)
  head = startLocalServer(HEAD_PORT, PASSWORD, ['--afp-conf', conf])
  return api.start()
})

afterAll(async () => {
  stopLocalServer(HEAD_PORT)
  stopLocalServer(BASE_PORT)
  await api.stop()
})

describe('A/B in one job: head gated against base, both measured together', () => {
  it('pull_request — a fail verdict from the pairs, in the outputs and the comment', async () => {
    const r = await run(abInputs({ 'results-dir': 'res-ab' }))
    expect(r.status, r.log).toBe(1)
    expect(r.log).toMatch(
      new RegExp(
        `against head ${head.host}:${HEAD_PORT} and base ${base.host}:${BASE_PORT}, measured together \\(A/B\\)`
      )
    )
    const verdict = JSON.parse(
      readFileSync(path.join(workspace, 'res-ab', 'verdict.json'), 'utf8')
    ) as { mode: string; status: string; rows: Array<{ metric: string; pairs?: number }> }
    expect(verdict.mode).toBe('ab')
    expect(verdict.rows.some((row) => row.pairs === 5)).toBe(true)

    expect(r.outputs.verdict).toBe('fail')
    const regressed = JSON.parse(r.outputs['regressed-metrics']) as string[]
    expect(
      // AppleDouble files read and written: the rows of afpd's file IO
      regressed.some((m) => /afpd_file_[rw]/.test(m)),
      regressed.join(' ')
    ).toBe(true)
    expect(Number(r.outputs.regressions)).toBe(regressed.length)
    expect(r.log).toMatch(/::error::afpbench verdict: fail/)

    expect(api.comments).toHaveLength(1)
    const body = api.comments[0].body
    expect(body.split('\n')[0]).toBe('<!-- afpbench-action:report -->')
    expect(body).toMatch(
      /^Head (and base, both netatalk \S+|\(netatalk .*\) and base \(netatalk .*\)), measured together;/m
    )
    expect(r.summary).toMatch(/measured together/)
  })

  it('a baseline as well is an input error naming it, before anything runs', async () => {
    writeFileSync(path.join(workspace, 'stored.json'), '{}')
    const before = api.requests.length
    const r = await run(abInputs({ baseline: 'stored.json', 'results-dir': 'res-ab-bad' }))
    expect(r.status).toBe(1)
    expect(r.log).toMatch(
      /::error::input 'baseline': must be empty when the base side is named \(base-server, base-proc-io\)/
    )
    expect(api.requests.length).toBe(before)
  })
})
