// End to end, netatalk's own pull-request flow on a REAL Docker Engine: the
// committed dist/ bundle, run as GitHub runs it with server: compose,
// netatalk-source and base-netatalk-source, builds two netatalk source trees
// with Dockerfile.server's server-source target, serves them with compose's
// profile "ab" and gates head against base. Only GitHub's REST API is stood in
// for (fake-github.ts).
//
// The trees: the netatalk 4.4 tree the workspace carries (the base), and a
// copy of it whose FPGetFileDirParms makes one extra stat() call (the head),
// a change of the kind netatalk's maintainers make, both serving netatalk
// CI's CNID backend (afp-conf: cnid scheme = sqlite). The system call rows
// must fail it and name newfstatat; the report names the configuration. The first run saves both servers to the
// image-cache directory; the engine then forgets them (as a hosted runner's
// next job would start without them), and a second run loads them from the
// directory instead of building. The test prints the build and load times.
//
// Needs an engine, as compose.e2e-engine.test.ts does; without one it FAILS.
// Without the 4.4 tree (no tarball in ../shared/netatalk, none unpacked in the
// cache: scripts/tests/lib/netatalk-44.sh exits 77) it is skipped, and prints
// one line "not run: WHY" that scripts/test-all repeats at the end.

import { spawnSync } from 'node:child_process'
import { cpSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { FakeGitHubServer } from './fake-github.js'
import {
  docker,
  REPO_ROOT,
  requireE2ePrerequisites,
  runAction,
  runPostStep,
  type ActionRun
} from './harness.js'

const TOKEN = 'ghs_e2eSourceTokenNeverPrinted'
const api = new FakeGitHubServer()
const engineEnv: Record<string, string> = {}
for (const name of ['DOCKER_HOST', 'DOCKER_CONFIG', 'BASE_IMAGE'])
  if (process.env[name]) engineEnv[name] = process.env[name] ?? ''
const workspace = mkdtempSync(path.join(os.tmpdir(), 'afpbench-e2e-source-'))

// The 4.4 tree, unpacked once by the test helper (which says what is missing).
const treeLookup = spawnSync(path.join(REPO_ROOT, 'scripts', 'tests', 'lib', 'netatalk-44.sh'), {
  encoding: 'utf8'
})
const NO_TREE = 77
const noTree = treeLookup.status === NO_TREE
if (noTree) console.log(`not run: ${treeLookup.stderr.trim().split('\n').pop() ?? ''}`)

// The head's change: one stat() of the working directory at the start of
// every FPGetFileDirParms, before the reply is built.
const PATCHED_FILE = path.join('etc', 'afpd', 'filedir.c')
const PATCH_AFTER = '    *rbuflen = 0;\n'
const PATCH_LINE = '    { struct stat afpbench_extra; (void)stat(".", &afpbench_extra); }\n'

function patchHead(tree: string): void {
  const file = path.join(tree, PATCHED_FILE)
  const text = readFileSync(file, 'utf8')
  const at = text.indexOf('int afp_getfildirparams(')
  const line = text.indexOf(PATCH_AFTER, at)
  if (at < 0 || line < 0)
    throw new Error(`${file}: afp_getfildirparams has changed; the test's patch needs a new place`)
  const end = line + PATCH_AFTER.length
  writeFileSync(file, text.slice(0, end) + PATCH_LINE + text.slice(end))
}

beforeAll(async () => {
  if (noTree) return
  requireE2ePrerequisites()
  const engine = docker(['version', '--format', '{{.Server.Version}}'])
  if (engine.status !== 0)
    throw new Error(
      'the source-build A/B e2e needs a Docker engine (DOCKER_HOST; `scripts/test-all compose` ' +
        `starts one): ${engine.out.trim()}`
    )
  if (treeLookup.status !== 0)
    throw new Error(`no netatalk 4.4 source tree: ${treeLookup.stderr.trim()}`)
  cpSync(treeLookup.stdout.trim(), path.join(workspace, 'netatalk-base'), { recursive: true })
  cpSync(treeLookup.stdout.trim(), path.join(workspace, 'netatalk-head'), { recursive: true })
  patchHead(path.join(workspace, 'netatalk-head'))
  writeFileSync(path.join(workspace, 'sqlite.conf'), '[File Sharing]\ncnid scheme = sqlite\n')
  // Timings are not what this is about (a shared machine, three pairs).
  writeFileSync(
    path.join(workspace, 'wide.json'),
    JSON.stringify({ schema: 'afpbench-thresholds/1', defaults: { cpu: 1000 } })
  )
  await api.start()
})

afterAll(async () => {
  if (noTree) return
  await api.stop()
})

async function gate(resultsDir: string): Promise<{ run: ActionRun; seconds: number }> {
  const start = Date.now()
  const run = await runAction({
    inputs: {
      'netatalk-source': 'netatalk-head',
      'base-netatalk-source': 'netatalk-base',
      'afp-conf': 'sqlite.conf',
      // lantest 9: cache hits, an FPGetFileDirParms per file of a tree
      tests: '9',
      iterations: '3',
      thresholds: 'wide.json',
      'time-threshold': '1000',
      'results-dir': resultsDir,
      'image-cache': '.afpbench-images',
      'github-token': TOKEN
    },
    eventName: 'pull_request',
    eventFile: 'pull_request.json',
    workspace,
    apiUrl: api.url,
    jobToken: TOKEN,
    env: engineEnv
  })
  const seconds = (Date.now() - start) / 1000
  // the post step tears the stack down
  const post = await runPostStep(run, {
    eventName: 'pull_request',
    eventFile: 'pull_request.json',
    workspace,
    apiUrl: api.url,
    env: engineEnv
  })
  expect(post.status, post.log).toBe(0)
  return { run, seconds }
}

const buildSeconds = (log: string): number =>
  Number(/Build the head and base server images and the client: done in (\d+) s/.exec(log)?.[1])
const loadSeconds = (log: string): number[] =>
  [
    ...log.matchAll(/image-cache: \S+ \(netatalk-(?:head|base), key [0-9a-f]+\) loaded in (\d+) s/g)
  ].map((m) => Number(m[1]))

describe.skipIf(noTree)(
  'netatalk pull-request flow: two source trees built and gated A/B in compose',
  () => {
    it('an extra stat() per FPGetFileDirParms fails on afpd’s stat calls, named; warm builds reuse both', async () => {
      const cold = await gate('res-cold')
      const r = cold.run
      // the step fails, as fail-on's default says for a failed verdict
      expect(r.status, r.log).toBe(1)
      expect(r.log).toMatch(/::group::Build the head and base server images and the client/)
      expect(r.log).toMatch(/base-server-1\s+Healthy/)
      expect(r.outputs.verdict).toBe('fail')
      const verdict = JSON.parse(
        readFileSync(path.join(workspace, 'res-cold', 'verdict.json'), 'utf8')
      ) as {
        decided_by: string[]
        current: { provenance: { netatalk: { version: string }; afp_conf_settings: string } }
        baseline: { provenance: { afp_conf_settings: string } }
        rows: Array<{
          metric: string
          state: string
          ratio: number
          movers?: Array<{ call: string }>
        }>
      }
      // both sides are the 4.4 tree, built from source
      expect(verdict.current.provenance.netatalk.version).toMatch(/source|4\.4/)
      // both sides served the configuration, and the report names it
      expect(verdict.current.provenance.afp_conf_settings).toBe('cnid scheme = sqlite')
      expect(verdict.baseline.provenance.afp_conf_settings).toBe('cnid scheme = sqlite')
      const stat = verdict.rows.find((row) => row.metric === 'aggregate.afpd_sys_stat_per_op')
      expect(stat?.state).toBe('fail')
      expect(stat?.movers?.[0].call).toBe('newfstatat')
      expect(verdict.decided_by).toContain('aggregate.afpd_sys_stat_per_op')
      // IO did not move: the gate fails on the server's work that IO cannot see
      expect(
        verdict.rows.filter(
          (row) => /_(reads|writes)_per_op$/.test(row.metric) && row.state === 'fail'
        )
      ).toEqual([])
      // the client reached both servers over the head server's loopback
      expect(r.log).toMatch(/A\/B against base 127\.0\.0\.1:549/)
      expect(api.comments).toHaveLength(1)
      expect(api.comments[0].body).toMatch(/newfstatat/)
      expect(api.comments[0].body).toMatch(
        /\| settings under test \| `cnid scheme = sqlite` \| `cnid scheme = sqlite` \|/
      )

      // both sides saved, one file each (two trees, two keys)
      expect(
        r.log.match(/image-cache: \S+ \(netatalk-(head|base), key [0-9a-f]+\) saved to/g)
      ).toHaveLength(2)
      const cache = path.join(workspace, '.afpbench-images')
      const files = readdirSync(cache).filter((f) => /^server-source-[0-9a-f]{16}\.tar$/.test(f))
      expect(files).toHaveLength(2)

      // The engine forgets every image of those servers, as a new runner would
      // not have them; only the cache directory can give them back.
      const images = docker(['image', 'ls', '--format', '{{.Repository}}:{{.Tag}}'])
        .out.split('\n')
        .filter((name) => /^afpbench-server-source:|-(base-)?server:latest$/.test(name))
      expect(images.length).toBeGreaterThanOrEqual(4)
      // --force: a stopped container an earlier, failed run left behind must not
      // keep a name here (a new runner has neither)
      expect(docker(['image', 'rm', '--force', ...images]).status).toBe(0)

      const warm = await gate('res-warm')
      expect(warm.run.status, warm.run.log).toBe(1)
      expect(loadSeconds(warm.run.log)).toHaveLength(2)
      // compose built the client only, and the loaded head still has its change
      expect(warm.run.log).toMatch(/--profile ab build client\n/)
      const warmVerdict = JSON.parse(
        readFileSync(path.join(workspace, 'res-warm', 'verdict.json'), 'utf8')
      ) as { rows: Array<{ metric: string; state: string }> }
      expect(
        warmVerdict.rows.find((row) => row.metric === 'aggregate.afpd_sys_stat_per_op')?.state
      ).toBe('fail')
      console.log(
        `# source-build A/B in compose: first run builds both sides in ${buildSeconds(r.log)} s ` +
          `(the engine's layer cache may hold them) and its main step takes ${cold.seconds.toFixed(0)} s; ` +
          `from image-cache, loading took ${loadSeconds(warm.run.log).join(' and ')} s, the build ` +
          `(client only) ${buildSeconds(warm.run.log)} s, the main step ${warm.seconds.toFixed(0)} s; ` +
          `afpd stat calls per op x${stat?.ratio}`
      )
    })
  }
)
