// The command lines, environment and version checks the compose path builds.
// The compose-mode end-to-end test (e2e/compose.e2e-engine.test.ts) runs them
// on a real Docker Engine.
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { parse } from 'yaml'
import {
  BASE_INSTR_SERVICE,
  BASE_SERVICE,
  composeCommands,
  composeEnv,
  composeProject
} from './compose.js'
import type { BaseSide } from './inputs.js'
import { BASE_ADDRESS } from './names.js'
import type { Plan } from './settings.js'
import { testConfig } from './testing/config.js'

const target = { project: 'afpbench-77-1-gate', file: '/action/compose.yaml' }
// testConfig's plan is this checkout's scripts/plan's; composeEnv stages it
const ACTION = path.resolve(import.meta.dirname, '..', '..')
const REPO = ACTION
const planIn = (inputs: string): Plan =>
  JSON.parse(readFileSync(path.join(inputs, 'plan.json'), 'utf8')) as Plan

// What only the instrumented client has: the directories its servers under
// valgrind (the head, and an A/B run's base) leave their counts in.
const INSTR_CLIENT_ONLY = ['AFPBENCH_INSTR_DIR', 'BASE_AFPBENCH_INSTR_DIR']

// How the environments compose.yaml declares for its two clients differ,
// compared as written (before interpolation: a variable listed without a
// value counts, set or not), one line per variable. The gate's settings come
// from one shared list; a setting one client lacks silently does not reach
// that client's runs.
function clientEnvDifferences(composeText: string): string[] {
  const compose = parse(composeText, { merge: true }) as {
    services: Record<string, { environment?: Record<string, unknown> }>
  }
  const plain = compose.services.client.environment ?? {}
  const instr = compose.services['client-instr'].environment ?? {}
  const found: string[] = []
  for (const name of new Set([...Object.keys(plain), ...Object.keys(instr)])) {
    if (INSTR_CLIENT_ONLY.includes(name)) {
      if (name in plain) found.push(`${name}: in client, meant for client-instr only`)
      if (!(name in instr)) found.push(`${name}: missing in client-instr`)
    } else if (!(name in instr)) found.push(`${name}: client only`)
    else if (!(name in plain)) found.push(`${name}: client-instr only`)
    else if (JSON.stringify(plain[name]) !== JSON.stringify(instr[name]))
      found.push(
        `${name}: ${JSON.stringify(plain[name])} in client, ${JSON.stringify(instr[name])} in client-instr`
      )
  }
  return found.sort()
}

describe('compose command lines', () => {
  it('are argv arrays for one project and file', () => {
    const base = [
      'compose',
      '--project-name',
      'afpbench-77-1-gate',
      '--file',
      '/action/compose.yaml'
    ]
    expect(composeCommands.build(target)).toEqual([...base, 'build'])
    expect(composeCommands.up(target)).toEqual([
      ...base,
      'up',
      '--detach',
      '--wait',
      '--no-build',
      'server'
    ])
    expect(composeCommands.run(target)).toEqual([...base, 'run', '--rm', '-T', 'client'])
    expect(composeCommands.logs(target)).toEqual([
      ...base,
      'logs',
      '--no-color',
      '--timestamps',
      'server'
    ])
    expect(composeCommands.down(target)).toEqual([
      ...base,
      '--profile',
      'ab',
      '--profile',
      'ab-instr',
      '--profile',
      'instr',
      'down',
      '--volumes',
      '--remove-orphans',
      '--timeout',
      '10'
    ])
  })

  it('A/B: the ab profile on, and the base server started and logged next to the server', () => {
    const ab = { ...target, ab: true }
    const prefix = [...composeCommands.build(target).slice(0, 5), '--profile', 'ab']
    expect(composeCommands.build(ab)).toEqual([...prefix, 'build'])
    expect(composeCommands.up(ab)).toEqual([
      ...prefix,
      'up',
      '--detach',
      '--wait',
      '--no-build',
      'server',
      'base-server'
    ])
    expect(composeCommands.run(ab)).toEqual([...prefix, 'run', '--rm', '-T', 'client'])
    expect(composeCommands.logs(ab).slice(-2)).toEqual(['server', 'base-server'])
    expect(composeCommands.down(ab)).toEqual(composeCommands.down(target))
  })

  it('instructions: the instr profile, its two services, and down with every profile', () => {
    const t = { ...target, instr: true }
    const base = [
      'compose',
      '--project-name',
      'afpbench-77-1-gate',
      '--file',
      '/action/compose.yaml',
      '--profile',
      'instr'
    ]
    expect(composeCommands.build(t)).toEqual([...base, 'build', 'server-instr', 'client-instr'])
    expect(composeCommands.up(t)).toEqual([
      ...base,
      'up',
      '--detach',
      '--wait',
      '--no-build',
      'server-instr'
    ])
    expect(composeCommands.run(t)).toEqual([...base, 'run', '--rm', '-T', 'client-instr'])
    expect(composeCommands.logs(t).at(-1)).toBe('server-instr')
    expect(composeCommands.down(t)).toEqual(composeCommands.down(target))
  })

  it('A/B with instructions: the ab-instr and instr profiles, both instrumented servers', () => {
    const t = { ...target, ab: true, instr: true }
    const base = [
      'compose',
      '--project-name',
      'afpbench-77-1-gate',
      '--file',
      '/action/compose.yaml',
      '--profile',
      'ab-instr',
      '--profile',
      'instr'
    ]
    expect(composeCommands.build(t)).toEqual([
      ...base,
      'build',
      'server-instr',
      'base-server-instr',
      'client-instr'
    ])
    expect(composeCommands.up(t).slice(-2)).toEqual(['server-instr', 'base-server-instr'])
    expect(composeCommands.run(t)).toEqual([...base, 'run', '--rm', '-T', 'client-instr'])
    expect(composeCommands.down(t)).toEqual(composeCommands.down(target))
  })

  it('A/B with instructions: the client finds the instrumented base and its counts', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'compose-'))
    const env = composeEnv(
      testConfig({
        instructions: 'compose',
        base: {
          server: null,
          netatalkVersion: '4.2.3',
          netatalkSource: '',
          afpConf: '',
          afpConfSettings: null,
          procIo: ''
        }
      }),
      dir,
      ACTION
    )
    expect(env).toMatchObject({
      BASE_AFP_HOST: '127.0.0.1',
      BASE_AFP_PORT: '549',
      BASE_AFPBENCH_INSTR_DIR: '/instr-base',
      BASE_NETATALK_VERSION: '4.2.3'
    })
    // the plan is an A/B run's; compose.yaml's client-instr names /instr
    expect(planIn(dir).derived).toMatchObject({ ab: true })
  })

  it('the project name is unique per run, attempt and job, in compose’s alphabet', () => {
    expect(
      composeProject({ GITHUB_RUN_ID: '77', GITHUB_RUN_ATTEMPT: '2', GITHUB_JOB: 'Bench.AFP' })
    ).toBe('afpbench-77-2-bench-afp')
  })
})

describe('composeEnv', () => {
  it('passes the run as a plan staged at /baselines/plan.json, the login as variables, never on a command line', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'compose-'))
    const inputs = path.join(dir, 'inputs')
    const env = composeEnv(
      testConfig({
        gate: {
          ...testConfig().gate,
          AFPBENCH_TESTS: '1-3',
          AFPBENCH_SPEEDTEST: 'Read:1',
          AFPBENCH_ITERATIONS: '7',
          AFPBENCH_AFP_VERSION: '6',
          AFPBENCH_TIME_THRESHOLD: '7.5'
        },
        resultsDir: '/w/res'
      }),
      inputs,
      ACTION
    )
    expect(env).toMatchObject({
      AFPBENCH_PLAN: '/baselines/plan.json',
      AFP_USER: 'afpbench',
      AFP_PASS: 'hunter22',
      SHARE_NAME: 'File Sharing',
      AFPBENCH_RESULTS_DIR: '/w/res',
      AFPBENCH_BASELINES_DIR: inputs
    })
    // no run setting goes by the environment: compose would not pass it on
    expect(
      Object.keys(env).filter((k) => /^AFPBENCH_(TESTS|ITERATIONS|BASELINE)$/.test(k))
    ).toEqual([])
    expect(planIn(inputs).settings).toMatchObject({
      AFPBENCH_TESTS: '1-3',
      AFPBENCH_SPEEDTEST: 'Read:1',
      AFPBENCH_ITERATIONS: '7',
      AFPBENCH_AFP_VERSION: '6',
      AFPBENCH_TIME_THRESHOLD: '7.5',
      AFPBENCH_IO_THRESHOLD: '',
      AFPBENCH_BASELINE_MISSING: ''
    })
    expect(planIn(inputs).files.baseline).toBeNull()
    // the plan holds no password
    expect(readFileSync(path.join(inputs, 'plan.json'), 'utf8')).not.toContain('hunter22')
    expect(env.SERVER_TARGET).toBe('')
    // The results belong to the runner's user, not to the client's root.
    expect(env.AFPBENCH_RESULTS_OWNER).toBe(`${process.getuid?.()}:${process.getgid?.()}`)
    // Not A/B: set empty, so a BASE_AFP_HOST in the job's environment cannot turn it on.
    expect(env).toMatchObject({ BASE_AFP_HOST: '', BASE_AFP_PORT: '', COMPOSE_PROFILES: '' })
    expect(Object.keys(env).filter((k) => k.startsWith('BASE_') && env[k] !== '')).toEqual([])
    expect(planIn(inputs).derived).toMatchObject({ ab: false })
  })

  it('the plan carries the baseline, the thresholds and the history read, whole', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'compose-'))
    const baseline = path.join(REPO, 'scripts', 'tests', 'fixtures', 'lantest-a.json')
    writeFileSync(path.join(dir, 'limits.json'), '{"schema":"afpbench-thresholds/1"}')
    writeFileSync(path.join(dir, 'trend.json'), '{"schema":"afpbench-trend/1"}')
    writeFileSync(
      path.join(dir, 'reference.json'),
      '{"schema":"afpbench-reference/1","commit":"c0ffee"}'
    )
    const inputs = path.join(dir, 'inputs')
    composeEnv(
      testConfig({
        baseline,
        baselineName: 'the-baseline.json',
        thresholds: path.join(dir, 'limits.json')
      }),
      inputs,
      ACTION,
      { trend: path.join(dir, 'trend.json'), reference: path.join(dir, 'reference.json') }
    )
    const plan = planIn(inputs)
    expect(plan.files.baseline?.content).toEqual(JSON.parse(readFileSync(baseline, 'utf8')))
    expect(plan.settings.AFPBENCH_BASELINE_NAME).toBe('the-baseline.json')
    expect(plan.files.thresholds?.content).toEqual({ schema: 'afpbench-thresholds/1' })
    expect(plan.files.trend?.content).toEqual({ schema: 'afpbench-trend/1' })
    expect(plan.files.reference).toMatchObject({ commit: 'c0ffee', name: 'reference.json' })
    // nothing else is staged: the plan is the whole run
    expect(readdirSync(inputs)).toEqual(['plan.json'])
  })

  it('a first run: no baseline carried, its path passed on for the report', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'compose-'))
    composeEnv(
      testConfig({ baselineMissing: '.github/afpbench/baseline.json' }),
      path.join(dir, 'inputs'),
      ACTION
    )
    const plan = planIn(path.join(dir, 'inputs'))
    expect(plan.files.baseline).toBeNull()
    expect(plan.settings.AFPBENCH_BASELINE_MISSING).toBe('.github/afpbench/baseline.json')
  })

  it('compose.yaml passes the plan’s path on to both clients', () => {
    // merge: the clients take the login through a "<<" merge key
    const compose = parse(
      readFileSync(path.join(import.meta.dirname, '..', '..', 'compose.yaml'), 'utf8'),
      { merge: true }
    ) as { services: Record<string, { environment?: Record<string, unknown> }> }
    for (const service of ['client', 'client-instr'])
      expect(Object.keys(compose.services[service].environment ?? {})).toContain('AFPBENCH_PLAN')
  })

  it('compose.yaml gives both clients the same environment, but for the instrumented counts’ directories', () => {
    const text = readFileSync(path.join(import.meta.dirname, '..', '..', 'compose.yaml'), 'utf8')
    expect(clientEnvDifferences(text)).toEqual([])
  })

  it('the clients’ comparison names a setting one client lacks (the check can fail)', () => {
    // issue 24's drift: client-instr listed its environment by hand and missed
    // speedtest and load, so with instructions on they silently did not run
    const drifted = `
x-gate: &gate
  AFPBENCH_TESTS:
  AFPBENCH_SPEEDTEST:
  AFPBENCH_LOAD:
services:
  client:
    environment:
      <<: *gate
      AFP_HOST: 127.0.0.1
  client-instr:
    environment:
      AFPBENCH_TESTS:
      AFP_HOST: 127.0.0.2
      AFPBENCH_INSTR_DIR: /instr
`
    expect(clientEnvDifferences(drifted)).toEqual([
      'AFPBENCH_LOAD: client only',
      'AFPBENCH_SPEEDTEST: client only',
      'AFP_HOST: "127.0.0.1" in client, "127.0.0.2" in client-instr'
    ])
  })

  it('compose.yaml runs both bases and both clients in their server’s network namespace, the base on the port the action names', () => {
    const compose = parse(
      readFileSync(path.join(import.meta.dirname, '..', '..', 'compose.yaml'), 'utf8'),
      { merge: true }
    ) as {
      services: Record<
        string,
        { network_mode?: string; pid?: string; environment?: Record<string, unknown> }
      >
    }
    const head: Record<string, string> = {
      client: 'server',
      [BASE_SERVICE]: 'server',
      'client-instr': 'server-instr',
      [BASE_INSTR_SERVICE]: 'server-instr'
    }
    for (const [service, server] of Object.entries(head)) {
      expect(compose.services[service].network_mode, service).toBe(`service:${server}`)
      expect(compose.services[service].pid, service).toBe(`service:${server}`)
    }
    for (const service of [BASE_SERVICE, BASE_INSTR_SERVICE]) {
      const env = compose.services[service].environment ?? {}
      expect(env.AFP_PORT).toBe(`\${BASE_AFP_PORT:-${BASE_ADDRESS.port}}`)
      // a CNID port of its own: the head's cnid_metad has the default one
      expect(String(env.AFP_CNID_LISTEN)).not.toMatch(/:4700$/)
    }
    for (const service of ['client', 'client-instr'])
      expect(compose.services[service].environment?.AFP_HOST).toBe(BASE_ADDRESS.host)
  })

  it('selects the server build from the plan: a Debian version, or a source checkout', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'compose-'))
    const version = composeEnv(testConfig({ netatalkVersion: '4.2.3-1' }), dir, ACTION)
    expect(version.NETATALK_VERSION).toBe('4.2.3-1')
    expect(version.SERVER_TARGET).toBe('')
    const tree = mkdtempSync(path.join(os.tmpdir(), 'netatalk-'))
    const source = composeEnv(testConfig({ netatalkSource: tree }), dir, ACTION)
    expect(source).toMatchObject({
      NETATALK_SOURCE: tree,
      SERVER_TARGET: 'server-source',
      SERVER_DOCKERFILE: path.join(ACTION, 'Dockerfile.server')
    })
    expect(planIn(dir).server.netatalk_source).toMatchObject({ path: tree })
  })

  it('A/B: the base server built from a Debian version, the client pointed at it', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'compose-'))
    const env = composeEnv(testConfig({ base: base({ netatalkVersion: '4.2.3-1' }) }), dir, ACTION)
    expect(env).toMatchObject({
      COMPOSE_PROFILES: 'ab',
      BASE_AFP_HOST: '127.0.0.1',
      BASE_AFP_PORT: '549',
      BASE_AFP_USER: 'afpbench',
      BASE_AFP_PASS: 'hunter22',
      BASE_SHARE_NAME: 'File Sharing',
      BASE_NETATALK_VERSION: '4.2.3-1',
      BASE_NETATALK_SOURCE: '',
      BASE_SERVER_TARGET: '',
      BASE_SERVER_DOCKERFILE: '',
      BASE_AFP_EXTRA_GLOBAL: '',
      BASE_AFP_EXTRA_VOLUME: ''
    })
    // A/B has no baseline
    expect(planIn(dir).files.baseline).toBeNull()
    expect(planIn(dir).base_server?.netatalk_version).toBe('4.2.3-1')
    // the head is untouched: the image's default package
    expect(env.NETATALK_VERSION).toBe('')
  })

  it('afp-conf: its settings go to the server; in A/B the base serves them too unless base-afp-conf', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'compose-'))
    const conf = (name: string, text: string): string => {
      writeFileSync(path.join(dir, name), text)
      return path.join(dir, name)
    }
    const afpConf = conf('head.conf', '[Global]\nserver quantum = 1048576\n[Share]\nea = ad\n')
    const head = composeEnv(testConfig({ afpConf }), dir, ACTION)
    expect(head).toMatchObject({
      AFP_EXTRA_GLOBAL: 'server quantum = 1048576',
      AFP_EXTRA_VOLUME: 'ea = ad',
      BASE_AFP_EXTRA_VOLUME: ''
    })
    expect(planIn(dir).server.afp_conf).toEqual({
      global: ['server quantum = 1048576'],
      volume: ['ea = ad']
    })
    const ab = composeEnv(
      testConfig({ afpConf, base: base({ netatalkVersion: '4.2.3-1' }) }),
      dir,
      ACTION
    )
    expect(ab).toMatchObject({
      BASE_AFP_EXTRA_GLOBAL: 'server quantum = 1048576',
      BASE_AFP_EXTRA_VOLUME: 'ea = ad'
    })
    const own = composeEnv(
      testConfig({ afpConf, base: base({ afpConf: conf('base.conf', '[Share]\nea = sys\n') }) }),
      dir,
      ACTION
    )
    expect(own).toMatchObject({
      AFP_EXTRA_VOLUME: 'ea = ad',
      BASE_AFP_EXTRA_GLOBAL: '',
      BASE_AFP_EXTRA_VOLUME: 'ea = sys'
    })
  })

  it('A/B: the base server built from the PR base checkout, serving an afp.conf', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'compose-'))
    const headTree = mkdtempSync(path.join(os.tmpdir(), 'head-'))
    const baseTree = mkdtempSync(path.join(os.tmpdir(), 'base-'))
    writeFileSync(
      path.join(dir, 'afp.conf'),
      '[Global]\nserver quantum = 262144\nlog level = default:warn\n[Share]\nea = ad\n'
    )
    const env = composeEnv(
      testConfig({
        netatalkSource: headTree,
        base: base({ netatalkSource: baseTree, afpConf: path.join(dir, 'afp.conf') })
      }),
      dir,
      ACTION
    )
    expect(env).toMatchObject({
      NETATALK_SOURCE: headTree,
      SERVER_TARGET: 'server-source',
      BASE_NETATALK_SOURCE: baseTree,
      BASE_SERVER_TARGET: 'server-source',
      BASE_SERVER_DOCKERFILE: path.join(ACTION, 'Dockerfile.server'),
      BASE_AFP_EXTRA_GLOBAL: 'server quantum = 262144\nlog level = default:warn',
      BASE_AFP_EXTRA_VOLUME: 'ea = ad'
    })
  })
})

function base(over: Partial<BaseSide>): BaseSide {
  return {
    server: null,
    netatalkVersion: '',
    netatalkSource: '',
    afpConf: '',
    afpConfSettings: null,
    procIo: '',
    ...over
  }
}
