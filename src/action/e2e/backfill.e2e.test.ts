// End to end: mode: backfill scaled out as examples/backfill.yml runs it. The
// committed dist/ bundle runs as GitHub runs it; the servers are REAL netatalk
// servers built from a REAL git repository: the 17 commits of
// scripts/tests/lib/bisect-repo.sh, made from the workspace's netatalk 4.4
// tree (c11 adds one stat() per FPGetFileDirParms, c8 does not build, c2, c6,
// c10, c14 change only a CI workflow and c4, c12, c16 only NEWS.md). GitHub's
// REST API and artifact service are the local stand-in (fake-github.ts), and
// actions/download-artifact is a copy of each slice's results directory into
// the fan-in's, one subdirectory per artifact, as it lays them out. The story:
//
//   1. four matrix jobs, slices 1/4 to 4/4 of c5..c16 (twelve commits), each
//      measuring its commits (scripts/backfill, natively) and uploading its
//      records
//   2. one fan-in job writing every record to the data branch in one commit,
//      while another writer moves the branch under it: it builds again on
//      the new tip, and both land

import { cpSync, mkdirSync, mkdtempSync, readFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { spawnSync } from 'node:child_process'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { octokitApi } from '../github-api.js'
import { parseRecord, type HistoryRecord } from '../history-record.js'
import { appendRecord, readHistory } from '../history-store.js'
import { FakeGitHubServer } from './fake-github.js'
import {
  e2ePort,
  netatalk44Tree,
  REPO_ROOT,
  requireE2ePrerequisites,
  runAction,
  type ActionRun
} from './harness.js'

const PORT = e2ePort(7) // 10597: each commit's server, natively
const TOKEN = 'ghs_backfillTokenThatMustNeverBePrinted'
const BRANCH = 'afpbench-data'

// The 4.4 tree, or why there is none (the story is not run then, and says so)
const { tree: TREE, noTree: NO_TREE } = netatalk44Tree('backfill.e2e')

const api = new FakeGitHubServer()
const workspace = mkdtempSync(path.join(os.tmpdir(), 'afpbench-e2e-backfill-'))
const repo = path.join(workspace, 'netatalk') // the job's workspace: the netatalk checkout
let c: string[] = [] // the 17 commits, c[0] first
const slices: ActionRun[] = []
let fanIn: ActionRun
const seconds: number[] = []

function run(inputs: Record<string, string>): Promise<ActionRun> {
  return runAction({
    inputs: { mode: 'backfill', 'github-token': TOKEN, ...inputs },
    eventName: 'workflow_dispatch',
    eventFile: 'push.json',
    workspace: repo,
    apiUrl: api.url,
    jobToken: TOKEN,
    env: {
      ...api.artifactEnv(),
      BACKFILL_PORT: String(PORT),
      ...(process.env.LOCAL_SERVER_TMPFS
        ? { LOCAL_SERVER_TMPFS: process.env.LOCAL_SERVER_TMPFS }
        : {})
    }
  })
}

// A slice's records, from its results directory
function records(dir: string): HistoryRecord[] {
  const out = spawnSync('find', [path.join(repo, dir, 'runs'), '-name', '*.json'], {
    encoding: 'utf8'
  })
  return out.stdout
    .split('\n')
    .filter((f) => f !== '')
    .map((f) => parseRecord(readFileSync(f, 'utf8'), f))
}

describe.skipIf(NO_TREE !== '')('mode: backfill over a matrix of four slices, one fan-in', () => {
  beforeAll(async () => {
    requireE2ePrerequisites()
    const made = spawnSync(path.join(REPO_ROOT, 'scripts/tests/lib/bisect-repo.sh'), [TREE, repo], {
      encoding: 'utf8'
    })
    if (made.status !== 0) throw new Error(`bisect-repo.sh failed: ${made.stderr}`)
    c = made.stdout.trim().split('\n')
    await api.start()
    // the matrix: one job after the other here (each job has a runner of
    // its own on GitHub; here they would share one build tree)
    for (let k = 1; k <= 4; k++) {
      const t0 = Date.now()
      slices.push(
        await run({
          'backfill-range': `${c[5]}..${c[16]}`,
          'backfill-slice': `${k}/4`,
          tests: '9',
          'results-dir': `slice-${k}`,
          'artifact-name': `afpbench-backfill-${k}`
        })
      )
      seconds.push(Math.round((Date.now() - t0) / 1000))
    }
    // actions/download-artifact: each artifact in a directory of its name
    const fan = path.join(repo, 'afpbench-results')
    mkdirSync(fan)
    for (let k = 1; k <= 4; k++)
      cpSync(path.join(repo, `slice-${k}`), path.join(fan, `afpbench-backfill-${k}`), {
        recursive: true
      })
    // a push's run on the branch already, and another writer landing just
    // before the fan-in's move (made certain by the stand-in)
    await appendRecord(
      octokitApi(TOKEN, 'octo-org/afp-server', api.url),
      BRANCH,
      parseRecord(
        JSON.stringify({
          schema: 'afpbench-history/1',
          commit: 'f'.repeat(40),
          date: '2026-11-28T00:00:00.000Z',
          key: 'push'
        }),
        'a push'
      )
    )
    api.raceOnce.add(BRANCH)
    fanIn = await run({ 'results-dir': 'afpbench-results' })
    // four slices of a real repository from a build tree that may be new:
    // minutes, more than the config's 300 s
  }, 1_200_000)

  afterAll(async () => {
    await api.stop()
    spawnSync(path.join(REPO_ROOT, 'scripts/local-server'), ['stop', '--port', String(PORT)])
  })

  it('each slice measures its commits and uploads them; together they are the range, once each', () => {
    for (const [k, s] of slices.entries()) {
      expect(s.status, s.log).toBe(0)
      expect(api.artifacts.find((a) => a.name === `afpbench-backfill-${k + 1}`)?.finalized).toBe(
        true
      )
    }
    const all = [1, 2, 3, 4].flatMap((k) => records(`slice-${k}`))
    expect(all.map((r) => r.commit).sort()).toEqual(c.slice(5).sort())
    const source = (n: number): string => all.find((r) => r.commit === c[n])?.source ?? 'measured'
    // CI and NEWS commits reuse their parent's measurement, never built
    for (const n of [6, 10, 12, 14, 16]) expect(source(n), `c${n}`).toBe('reused')
    expect(all.find((r) => r.commit === c[10])?.reused_from).toBe(c[9])
    // the first commit of slice 4 (c14) reuses c13, which slice 4 measured as its anchor
    expect(all.find((r) => r.commit === c[14])?.reused_from).toBe(c[13])
    expect(source(8)).toBe('skipped')
    expect(all.find((r) => r.commit === c[8])?.skip_reason).toMatch(/^does not build/)
    for (const n of [5, 7, 9, 11, 13, 15]) expect(source(n), `c${n}`).toBe('measured')
    // never measured: no slice's log starts a measurement of them (c10 is
    // slice 3's anchor, the commit before it: measured there for the series)
    const logs = slices.map((x) => x.log).join('\n')
    for (const n of [6, 12, 14, 16]) expect(logs).not.toContain(`/12 ${c[n].slice(0, 12)}`)
    expect(logs).toContain(`/12 ${c[11].slice(0, 12)}`)
    // one iteration each: the counts are exact
    expect(logs).not.toMatch(/--iterations/)
    console.log(`# four slices of c5..c16, one after the other: ${seconds.join(', ')} s`)
  })

  it('the slice with c11 names the step there, confirmed, with its AFP command and code site', () => {
    const at = [1, 2, 3, 4].flatMap((k) => records(`slice-${k}`)).find((r) => r.commit === c[11])
    const stat = at?.steps?.find((s) => s.metric === 'aggregate.afpd_sys_stat_per_op')
    expect(stat, JSON.stringify(at?.steps)).toBeDefined()
    expect(stat && stat.after > stat.before).toBe(true)
    expect(stat?.commands[0]?.command).toBe('FPGetFileDirParms')
    expect(stat?.commands[0]?.calls.map((x) => x.call)).toContain('newfstatat')
    // no other commit of the range has a step
    const others = [1, 2, 3, 4]
      .flatMap((k) => records(`slice-${k}`))
      .filter((r) => r.commit !== c[11] && r.steps !== undefined)
    expect(others).toEqual([])
  })

  it('one fan-in writes every commit in one commit, beside the writers that raced it', async () => {
    expect(fanIn.status, fanIn.log).toBe(0)
    expect(fanIn.log).toMatch(
      /12 records written to branch 'afpbench-data' in one commit after 2 attempts/
    )
    const gh = octokitApi(TOKEN, 'octo-org/afp-server', api.url)
    const h = await readHistory(gh, BRANCH, '', 100)
    // every commit of the range, in the order of the commits
    expect(h.records.map((r) => r.commit)).toEqual(c.slice(5))
    // the other writers' files are there too: nothing lost
    expect((await readHistory(gh, BRANCH, 'push', 10)).records).toHaveLength(1)
    const tip = api.branches.get(BRANCH) ?? ''
    const files = api.trees.get(api.commits.get(tip)?.tree ?? '')?.map((f) => f.path) ?? []
    expect(files.filter((f) => f.startsWith('race/'))).toHaveLength(1)
    // the job summary: the range, and the step
    expect(fanIn.summary).toContain('12 commits in 4 slice(s)')
    expect(fanIn.summary).toMatch(
      new RegExp(
        `\\[\`${c[11].slice(0, 12)}\`\\]\\(https://github.com/octo-org/afp-server/commit/${c[11]}\\) filedir`
      )
    )
    expect(fanIn.summary).toContain('FPGetFileDirParms: newfstatat')
    const shown = [...slices, fanIn].flatMap((r) => [
      r.summary,
      ...r.log.split('\n').filter((l) => !l.startsWith('::add-mask::'))
    ])
    expect(shown.join('\n')).not.toContain(TOKEN)
  })
})
