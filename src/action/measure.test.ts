// The orchestration of server: compose with a recording runner in place of
// docker (no Docker engine on the project's machines), and of host:port with
// one in place of make and scripts/gate. The real host:port run is in e2e/.
import { chmodSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { makeBaseline, runGate } from './measure.js'
import type { Runner } from './runner.js'
import type { Plan } from './settings.js'
import { testConfig } from './testing/config.js'

// The action's directory: its real scripts (scripts/check-engine asks the
// stand-in docker below), nothing else.
const ACTION = mkdtempSync(path.join(os.tmpdir(), 'measure-action-'))
symlinkSync(path.resolve(import.meta.dirname, '..', '..', 'scripts'), path.join(ACTION, 'scripts'))

let tmp: string
let bin: string
let stateFile: string

beforeEach(() => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'measure-'))
  // Stand-ins so that the PATH checks find the programs; never executed,
  // except docker's version questions (FAKE_ENGINE / FAKE_COMPOSE answer them).
  for (const p of ['make', 'cc', 'jq', 'gnuplot']) {
    writeFileSync(path.join(tmp, p), '#!/bin/sh\nexit 99\n')
    chmodSync(path.join(tmp, p), 0o755)
  }
  writeFileSync(
    path.join(tmp, 'docker'),
    [
      '#!/bin/sh',
      'case "$*" in',
      '  "version --format {{.Server.Version}}")',
      '    [ -n "$FAKE_ENGINE" ] || { echo "Cannot connect to the Docker daemon" >&2; exit 1; }',
      '    echo "$FAKE_ENGINE" ;;',
      '  "compose version --short") echo "$FAKE_COMPOSE" ;;',
      '  *) exit 99 ;;',
      'esac',
      ''
    ].join('\n')
  )
  chmodSync(path.join(tmp, 'docker'), 0o755)
  bin = tmp
  stateFile = path.join(tmp, 'state')
  writeFileSync(stateFile, '')
  process.env.GITHUB_STATE = stateFile
})

afterEach(() => {
  delete process.env.GITHUB_STATE
})

// The plan a call ran: the file staged for compose, or scripts/gate's --plan.
function planFileOf(call: { args: string[]; env: Record<string, string> }): Plan {
  const file =
    call.args[0] === '--plan'
      ? call.args[1]
      : path.join(call.env.AFPBENCH_BASELINES_DIR, path.basename(call.env.AFPBENCH_PLAN))
  return JSON.parse(readFileSync(file, 'utf8')) as Plan
}
// Its settings.
function planOf(call: { args: string[]; env: Record<string, string> }): Record<string, string> {
  return planFileOf(call).settings
}

// Answers each command with the status the test sets for its subcommand.
function runner(
  statuses: Record<string, number> = {}
): Runner & { calls: Array<{ cmd: string; args: string[]; env: Record<string, string> }> } {
  const calls: Array<{ cmd: string; args: string[]; env: Record<string, string> }> = []
  const run = (async (cmd: string, args: string[], opts?: { env?: Record<string, string> }) => {
    calls.push({ cmd, args, env: opts?.env ?? {} })
    const sub = cmd === 'docker' ? subcommand(args) : path.basename(cmd)
    return Promise.resolve(statuses[sub] ?? 0)
  }) as Runner & { calls: typeof calls }
  run.calls = calls
  return run
}

// docker compose --project-name P --file F [--profile ab] SUBCOMMAND ...
function subcommand(args: string[]): string {
  const at = args[5] === '--profile' ? 7 : 5
  return args[at]
}

const env = (): NodeJS.ProcessEnv => ({
  // the stand-ins first; bash and the coreutils the scripts need after them
  PATH: `${bin}:/usr/bin:/bin`,
  FAKE_ENGINE: '26.1.5+dfsg1',
  FAKE_COMPOSE: '2.26.1-4',
  GITHUB_RUN_ID: '12',
  GITHUB_RUN_ATTEMPT: '1',
  GITHUB_JOB: 'bench',
  GITHUB_SHA: 'abc',
  RUNNER_TEMP: tmp,
  'INPUT_AFP-PASSWORD': 'hunter22'
})

describe('server: compose', () => {
  it('builds, starts the server, runs the client once; returns the gate’s status', async () => {
    const run = runner({ run: 1 })
    const config = testConfig({ resultsDir: path.join(tmp, 'res') })
    expect(await runGate({ config, actionDir: ACTION, env: env(), run })).toBe(1)
    expect(run.calls.map((c) => `${c.cmd} ${c.args.slice(5).join(' ')}`)).toEqual([
      'docker build',
      'docker up --detach --wait --no-build server',
      'docker run --rm -T client'
    ])
    expect(run.calls[0].args.slice(0, 5)).toEqual([
      'compose',
      '--project-name',
      'afpbench-12-1-bench',
      '--file',
      `${ACTION}/compose.yaml`
    ])
    // The login reaches compose as environment, the run as a plan; the
    // action's own inputs do not.
    expect(run.calls[2].env).toMatchObject({
      AFP_PASS: 'hunter22',
      AFPBENCH_RESULTS_DIR: config.resultsDir,
      AFPBENCH_PLAN: '/baselines/plan.json'
    })
    // the plan parseInputs made, as it made it
    expect(planFileOf(run.calls[2]).settings).toEqual(config.plan?.settings)
    expect(Object.keys(run.calls[2].env).some((k) => k.startsWith('INPUT_'))).toBe(false)
    // The post step learns what to tear down.
    const state = readFileSync(stateFile, 'utf8')
    expect(state).toContain('compose-project<<')
    expect(state).toContain('afpbench-12-1-bench')
  })

  it("a baseline's later session builds nothing and starts the server afresh", async () => {
    const run = runner()
    const config = testConfig({ mode: 'baseline', resultsDir: path.join(tmp, 'res') })
    expect(await runGate({ config, actionDir: ACTION, env: env(), run }, 2)).toBe(0)
    expect(run.calls.map((c) => `${c.cmd} ${c.args.slice(5).join(' ')}`)).toEqual([
      'docker up --detach --wait --no-build --force-recreate server',
      'docker run --rm -T client'
    ])
  })

  it('trend.json and reference.json reach the client carried whole in the plan', async () => {
    const run = runner()
    const trend = path.join(tmp, 'afpbench-trend.json')
    writeFileSync(trend, '{"schema": "afpbench-trend/1"}')
    const reference = path.join(tmp, 'afpbench-reference.json')
    writeFileSync(reference, '{"schema": "afpbench-reference/1", "commit": "c0ffee"}')
    const config = testConfig({ resultsDir: path.join(tmp, 'res') })
    await runGate({ config, actionDir: ACTION, env: env(), run, history: { trend, reference } })
    const plan = planFileOf(run.calls[2])
    expect(plan.files.trend?.content).toEqual({ schema: 'afpbench-trend/1' })
    expect(plan.files.reference).toMatchObject({ commit: 'c0ffee' })
    // none handed: none carried
    const none = runner()
    await runGate({ config, actionDir: ACTION, env: env(), run: none })
    expect(planFileOf(none.calls[2]).files).toMatchObject({ trend: null, reference: null })
  })

  it("no setting of the job's environment reaches compose: the inputs' values do", async () => {
    const run = runner()
    const config = testConfig({ resultsDir: path.join(tmp, 'res') })
    const job = {
      ...env(),
      AFPBENCH_TESTS: '99',
      AFPBENCH_LOAD_COLD: 'yes',
      AFP_EXTRA_VOLUME: 'ea = none',
      NETATALK_VERSION: '3.1.12',
      SHARE_NAME: 'Elsewhere',
      BASE_IMAGE: 'debian:trixie-slim'
    }
    await runGate({ config, actionDir: ACTION, env: job, run })
    expect(planOf(run.calls[2])).toMatchObject({ AFPBENCH_TESTS: '1-12', AFPBENCH_LOAD_COLD: '' })
    for (const call of run.calls) {
      expect(call.env.AFPBENCH_TESTS).toBeUndefined()
      expect(call.env.AFPBENCH_LOAD_COLD).toBeUndefined()
      expect(call.env.AFP_EXTRA_VOLUME ?? '').toBe('')
      expect(call.env.NETATALK_VERSION).toBe('')
      expect(call.env.SHARE_NAME).toBe('File Sharing')
      // what is not a setting passes: the engine, the base image
      expect(call.env.BASE_IMAGE).toBe('debian:trixie-slim')
    }
  })

  it('a server that does not become healthy: its log is shown and the step errors', async () => {
    const run = runner({ up: 1 })
    await expect(
      runGate({
        config: testConfig({ resultsDir: path.join(tmp, 'res') }),
        actionDir: ACTION,
        env: env(),
        run
      })
    ).rejects.toThrow(/Start the netatalk server failed: docker compose .* up .* exited 1/)
    expect(run.calls.map((c) => c.args[5])).toEqual(['build', 'up', 'logs'])
  })

  it('a gate error (exit 3) also shows the server log', async () => {
    const run = runner({ run: 3 })
    expect(
      await runGate({
        config: testConfig({ resultsDir: path.join(tmp, 'res') }),
        actionDir: ACTION,
        env: env(),
        run
      })
    ).toBe(3)
    expect(run.calls.map((c) => c.args[5])).toEqual(['build', 'up', 'run', 'logs'])
  })

  it('an engine that does not answer, or is too old, stops the run before anything is built', async () => {
    const cases: Array<[Record<string, string>, RegExp]> = [
      [
        { FAKE_ENGINE: '' },
        /server: compose: no Docker engine answers: .*Cannot connect to the Docker daemon/
      ],
      [
        { FAKE_ENGINE: '20.10.24+dfsg1' },
        /Docker Engine 23\.0 or later .*this is Docker Engine 20\.10/
      ],
      [{ FAKE_COMPOSE: 'v2.12.2' }, /Compose v2 2\.17 or later .*this is Compose v2\.12\.2/]
    ]
    for (const [over, message] of cases) {
      const run = runner()
      await expect(
        runGate({
          config: testConfig({ resultsDir: path.join(tmp, 'res') }),
          actionDir: ACTION,
          env: { ...env(), ...over },
          run
        })
      ).rejects.toThrow(message)
      expect(run.calls).toEqual([])
    }
  })

  it('without docker: a clear error that names the way out', async () => {
    await expect(
      runGate({
        config: testConfig({ resultsDir: path.join(tmp, 'res') }),
        actionDir: ACTION,
        env: { PATH: '/nonexistent' },
        run: runner()
      })
    ).rejects.toThrow(/needs Docker.*server: HOST:PORT/)
  })
})

describe('server: host:port', () => {
  it('builds afpbench, then runs scripts/gate with the connection in its environment', async () => {
    const run = runner({ gate: 2 })
    const config = testConfig({
      server: { kind: 'host', host: '127.0.0.1', port: 10590 },
      procIo: '/proc_io',
      resultsDir: path.join(tmp, 'res')
    })
    expect(await runGate({ config, actionDir: ACTION, env: env(), run })).toBe(2)
    expect(run.calls.map((c) => c.cmd)).toEqual(['make', `${ACTION}/scripts/gate`])
    expect(run.calls[1].args[0]).toBe('--plan')
    expect(run.calls[1].env).toMatchObject({
      AFP_HOST: '127.0.0.1',
      AFP_PORT: '10590',
      AFP_PASS: 'hunter22',
      PROC_IO: '/proc_io',
      AFPBENCH_BIN: `${ACTION}/src/afpbench/afpbench`,
      AFPBENCH_RESULTS: config.resultsDir
    })
    expect(planFileOf(run.calls[1]).files.baseline).toBeNull()
    expect(planOf(run.calls[1])).toMatchObject({ AFPBENCH_BASELINE_MISSING: '' })
  })

  it('a first run (baseline not made yet): no baseline, and the gate and report learn its path', async () => {
    const run = runner()
    const config = testConfig({
      server: { kind: 'host', host: '127.0.0.1', port: 10590 },
      baselineMissing: '.github/afpbench/baseline.json',
      resultsDir: path.join(tmp, 'res')
    })
    // one left in the job's environment is replaced, never passed on
    await runGate({
      config,
      actionDir: ACTION,
      env: { ...env(), AFPBENCH_BASELINE: '/stale.json' },
      run
    })
    expect(planFileOf(run.calls[1]).files.baseline).toBeNull()
    expect(planOf(run.calls[1])).toMatchObject({
      AFPBENCH_BASELINE_MISSING: '.github/afpbench/baseline.json'
    })
    expect(run.calls[1].env.AFPBENCH_BASELINE).toBeUndefined()
  })
})

describe('A/B', () => {
  const baseSide = {
    server: null,
    netatalkVersion: '',
    netatalkSource: '',
    afpConf: '',
    afpConfSettings: null,
    procIo: ''
  }

  it('host:port: scripts/gate gets the base server, logged into as the head, and its procfs', async () => {
    const run = runner()
    const config = testConfig({
      server: { kind: 'host', host: '127.0.0.1', port: 10851 },
      procIo: '/proc_io',
      base: { ...baseSide, server: { host: '127.0.0.1', port: 10852 }, procIo: '/proc_base' },
      resultsDir: path.join(tmp, 'res')
    })
    await runGate({ config, actionDir: ACTION, env: env(), run })
    expect(run.calls[1].env).toMatchObject({
      AFP_PORT: '10851',
      BASE_AFP_HOST: '127.0.0.1',
      BASE_AFP_PORT: '10852',
      BASE_AFP_USER: 'afpbench',
      BASE_AFP_PASS: 'hunter22',
      BASE_SHARE_NAME: 'File Sharing',
      BASE_PROC_IO: '/proc_base'
    })
    expect(planFileOf(run.calls[1]).files.baseline).toBeNull()
  })

  it('host:port: without base-proc-io the base uses the head’s procfs, never one from the job', async () => {
    const run = runner()
    const config = testConfig({
      server: { kind: 'host', host: '127.0.0.1', port: 10851 },
      base: { ...baseSide, server: { host: '127.0.0.1', port: 10852 } },
      resultsDir: path.join(tmp, 'res')
    })
    await runGate({ config, actionDir: ACTION, env: { ...env(), BASE_PROC_IO: '/x' }, run })
    expect(run.calls[1].env.BASE_PROC_IO).toBeUndefined()
    expect(run.calls[1].env.BASE_AFP_PORT).toBe('10852')
  })

  it('host:port without a base: A/B stays off whatever the job’s environment holds', async () => {
    const run = runner()
    const config = testConfig({
      server: { kind: 'host', host: '127.0.0.1', port: 10851 },
      resultsDir: path.join(tmp, 'res')
    })
    await runGate({
      config,
      actionDir: ACTION,
      env: { ...env(), BASE_AFP_HOST: 'elsewhere', BASE_PROC_IO: '/x' },
      run
    })
    expect(run.calls[1].env).toMatchObject({ BASE_AFP_HOST: '', BASE_AFP_PORT: '' })
    expect(run.calls[1].env.BASE_PROC_IO).toBeUndefined()
  })

  it('compose: the ab profile builds and starts the base server next to the head', async () => {
    const run = runner()
    const config = testConfig({
      base: { ...baseSide, netatalkVersion: '4.2.3-1' },
      resultsDir: path.join(tmp, 'res')
    })
    await runGate({ config, actionDir: ACTION, env: env(), run })
    expect(run.calls.map((c) => c.args.slice(5).join(' '))).toEqual([
      '--profile ab build',
      '--profile ab up --detach --wait --no-build server base-server',
      '--profile ab run --rm -T client'
    ])
    // the base listens beside the head, in its network namespace
    expect(run.calls[2].env).toMatchObject({
      BASE_AFP_HOST: '127.0.0.1',
      BASE_AFP_PORT: '549',
      BASE_NETATALK_VERSION: '4.2.3-1'
    })
  })

  it('compose: a base server that does not become healthy shows both servers’ logs', async () => {
    const run = runner({ up: 1 })
    const config = testConfig({
      base: { ...baseSide, netatalkVersion: '4.2.3-1' },
      resultsDir: path.join(tmp, 'res')
    })
    await expect(runGate({ config, actionDir: ACTION, env: env(), run })).rejects.toThrow(
      /Start the netatalk servers \(head and base\) failed/
    )
    expect(run.calls.at(-1)?.args.slice(-2)).toEqual(['server', 'base-server'])
  })
})

describe('mode: baseline', () => {
  it('runs scripts/baseline OUT SESSION_DIR..., and fails when it does', async () => {
    const config = testConfig({ mode: 'baseline', baselineOut: '/w/b.json', resultsDir: '/w/res' })
    const ok = runner()
    await makeBaseline({ config, actionDir: ACTION, env: env(), run: ok }, [
      '/w/res/session-1',
      '/w/res'
    ])
    expect(ok.calls.map((c) => [c.cmd, ...c.args])).toEqual([
      [`${ACTION}/scripts/baseline`, '/w/b.json', '/w/res/session-1', '/w/res']
    ])
    await expect(
      makeBaseline({ config, actionDir: ACTION, env: env(), run: runner({ baseline: 3 }) }, [
        '/w/res'
      ])
    ).rejects.toThrow(/scripts\/baseline exited 3: no baseline was written to \/w\/b.json/)
  })
})
