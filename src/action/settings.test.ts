// scripts/settings.json is the one source of the gate's settings: these tests
// fail on any difference between it and compose.yaml, what the action sets,
// what the gate defaults to and checks, action.yml's descriptions and
// docs/settings.md.
import { spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { parse } from 'yaml'
import { MARKERS, renderSettings, renderTests } from './build/action-docs.mjs'
import { composeEnv } from './compose.js'
import { baseEnv, loginEnv, planSettings } from './gate-env.js'
import { Input } from './names.js'
import { keptFromChildren } from './runner.js'
import { inputSettings, readSettingsTable } from './settings.js'
import { testConfig } from './testing/config.js'

const REPO = path.resolve(import.meta.dirname, '..', '..')
const table = readSettingsTable(REPO)
const byEnv = new Map(table.map((s) => [s.env, s]))
const rows = (compose: string): string[] =>
  table.filter((s) => s.compose === compose).map((s) => s.env)
const placeGroups = (
  JSON.parse(readFileSync(path.join(REPO, 'scripts', 'settings.json'), 'utf8')) as {
    place_groups: string[]
  }
).place_groups
const inPlan = table.filter((s) => !placeGroups.includes(s.group)).map((s) => s.env)
// where each of those is in a plan: its settings, its server sections, its files
const inSettings = table
  .filter((s) => inPlan.includes(s.env) && s.group !== 'server' && s.grammar !== 'file')
  .map((s) => s.env)

interface ComposeFile {
  'x-afp-login': Record<string, string>
  services: Record<string, { environment?: Record<string, unknown> }>
}
const compose = parse(readFileSync(path.join(REPO, 'compose.yaml'), 'utf8'), {
  merge: true
}) as ComposeFile

describe('the settings table', () => {
  it('names each setting once, with an input the action has and a grammar the gate knows', () => {
    expect(new Set(table.map((s) => s.env)).size).toBe(table.length)
    const inputs = new Set<string>(Object.values(Input))
    for (const s of table) if (s.input !== null) expect(inputs, s.env).toContain(s.input)
    const plan = readFileSync(path.join(REPO, 'scripts', 'lib', 'plan.sh'), 'utf8')
    const known = plan.slice(
      plan.indexOf('check_value() {'),
      plan.indexOf('\n}\n', plan.indexOf('check_value() {'))
    )
    for (const s of table)
      expect(known, `${s.env}: ${s.grammar}`).toMatch(
        new RegExp(`(^|[\\s|])${s.grammar}[\\s|)]`, 'm')
      )
  })

  it('is what the gate defaults to: scripts/plan with nothing set answers the defaults', () => {
    const r = spawnSync(path.join(REPO, 'scripts', 'plan'), [], {
      env: { PATH: process.env.PATH },
      encoding: 'utf8'
    })
    expect(r.status, r.stderr).toBe(0)
    const answer = JSON.parse(r.stdout) as {
      settings: Record<string, string>
      derived: Record<string, unknown>
    }
    // the plan's settings: every setting outside the place's groups, the
    // server's and the files, by name
    expect(Object.keys(answer.settings)).toEqual([...inSettings].sort())
    for (const s of table)
      if (s.default !== '' && inSettings.includes(s.env) && s.env !== 'AFPBENCH_TESTS')
        expect(answer.settings[s.env], s.env).toBe(s.default)
    // "all": every test of afpbench's catalogue, as ranges
    const catalogue = JSON.parse(
      readFileSync(path.join(REPO, 'scripts', 'lantest-tests.json'), 'utf8')
    ) as { tests: unknown[] }
    expect(byEnv.get('AFPBENCH_TESTS')?.default).toBe('all')
    expect(answer.settings.AFPBENCH_TESTS).toBe(`1-${catalogue.tests.length}`)
    // derived where the table says what empty means
    expect(answer.settings.AFPBENCH_ITERATIONS).toBe('5')
    expect(answer.derived).toMatchObject({ ab: false, iterations: 5, suites: ['lantest'] })
  })

  it("names the plan's settings 'plan' in its compose column, and only those", () => {
    expect(rows('plan')).toEqual(inPlan)
    // no password in a plan
    expect(inPlan.filter((e) => e.endsWith('_PASS'))).toEqual([])
  })
})

describe('compose.yaml', () => {
  it("passes the clients no setting of the plan: only the place and the plan's path", () => {
    for (const service of ['client', 'client-instr']) {
      const names = Object.keys(compose.services[service].environment ?? {})
      expect(
        names.filter((e) => inPlan.includes(e)),
        service
      ).toEqual([])
      expect(names, service).toContain('AFPBENCH_PLAN')
      for (const e of names) expect(byEnv.has(e), `${service} ${e}`).toBe(true)
    }
  })

  it("x-afp-login lists the 'login' rows, with the table's defaults", () => {
    expect(Object.keys(compose['x-afp-login']).sort()).toEqual(rows('login').sort())
    for (const env of rows('login'))
      expect(compose['x-afp-login'][env]).toBe(`\${${env}:-${byEnv.get(env)?.default}}`)
  })

  it("each client sets the 'client' rows itself, the instrumented one 'client-instr' too", () => {
    for (const service of ['client', 'client-instr'])
      for (const env of rows('client'))
        expect(compose.services[service].environment, `${service} ${env}`).toHaveProperty(env)
    for (const env of rows('client-instr'))
      expect(compose.services['client-instr'].environment, env).toHaveProperty(env)
  })
})

// The files the action reads of the history (trend.json, reference.json):
// carried into the plan by writePlan, not made by scripts/plan
// (compose.test.ts: "the plan carries ... the history read").
const fromHistory = (s: { grammar: string; input: string | null }): boolean =>
  s.grammar === 'file' && s.input === 'history-branch'

describe('the action', () => {
  const config = testConfig()
  const plan = Object.keys(
    planSettings({
      asWritten: Object.fromEntries(inputSettings(table).map((s) => [s.env, ''])),
      baseline: '',
      baselineMissing: '',
      baselineName: '',
      thresholds: '',
      instructions: '',
      baseInstructions: '',
      netatalkVersion: '',
      netatalkSource: '',
      afpConf: '',
      base: null,
      basePort: '',
      commit: 'abc'
    })
  )
  const set = new Set([
    ...plan,
    ...Object.keys(loginEnv(config)),
    ...Object.keys(baseEnv(config, 'h', '1')),
    ...Object.keys(composeEnv(config, '/tmp/afpbench-settings-test', REPO)),
    // host:port (measure.ts): the server, the procfs, the binary it built,
    // where the results go and the counts are
    'AFP_HOST',
    'AFP_PORT',
    'PROC_IO',
    'BASE_PROC_IO',
    'AFPBENCH_BIN',
    'AFPBENCH_RESULTS',
    'AFPBENCH_INSTR_DIR'
  ])

  it("makes the plan of the plan's settings, the A/B switch and where the counts are", () => {
    expect(plan.filter((e) => !inPlan.includes(e)).sort()).toEqual([
      'AFPBENCH_INSTR_DIR',
      'BASE_AFPBENCH_INSTR_DIR',
      'BASE_AFP_PORT'
    ])
  })

  it('sets each plan setting an input sets: as written when checked, else worked out', () => {
    const asWritten = inputSettings(table).map((s) => s.env)
    expect(asWritten).toContain('AFPBENCH_TESTS')
    for (const s of table.filter((r) => r.input !== null && inPlan.includes(r.env)))
      if (!asWritten.includes(s.env) && !fromHistory(s))
        expect(plan, `${s.env} (${s.input})`).toContain(s.env)
  })

  it('sets every setting an input sets', () => {
    for (const s of table)
      if (s.input !== null && !fromHistory(s)) expect(set, `${s.env} (${s.input})`).toContain(s.env)
  })

  it('sets no gate setting the table does not have', () => {
    const gateLike = [...set].filter((e) =>
      /^(AFPBENCH_|AFP_(HOST|PORT|USER|PASS)$|BASE_AFP|SHARE_NAME|(BASE_)?PROC_IO)/.test(e)
    )
    // compose's own (the mounts and the build), not the gate's
    const composeOwn = [
      'AFPBENCH_RESULTS_DIR',
      'AFPBENCH_BASELINES_DIR',
      'BASE_AFP_EXTRA_GLOBAL',
      'BASE_AFP_EXTRA_VOLUME'
    ]
    expect(gateLike.filter((e) => !byEnv.has(e) && !composeOwn.includes(e))).toEqual([])
  })

  it("never lets one through from the job's environment", () => {
    expect(table.map((s) => s.env).filter((e) => !keptFromChildren(e))).toEqual([])
  })

  it("describes an empty input as the gate's default, as the table does", () => {
    const action = parse(readFileSync(path.join(REPO, 'action.yml'), 'utf8')) as {
      inputs: Record<string, { description: string }>
    }
    for (const s of table)
      if (s.input !== null && s.empty !== undefined)
        expect(action.inputs[s.input].description.replace(/\s+/g, ' '), s.input).toContain(
          `Empty: the gate's default, ${s.empty}`
        )
  })
})

describe('docs/settings.md', () => {
  it('carries the table as the table renders', () => {
    const doc = readFileSync(path.join(REPO, 'docs', 'settings.md'), 'utf8')
    const [start, end] = MARKERS.settings
    const inDoc = doc.slice(doc.indexOf(start) + start.length, doc.indexOf(end)).trim()
    expect(inDoc).toBe(
      renderSettings(readFileSync(path.join(REPO, 'scripts', 'settings.json'), 'utf8'))
    )
  })

  it("carries the lantest tests as afpbench's catalogue renders them", () => {
    const doc = readFileSync(path.join(REPO, 'docs', 'settings.md'), 'utf8')
    const [start, end] = MARKERS.tests
    const inDoc = doc.slice(doc.indexOf(start) + start.length, doc.indexOf(end)).trim()
    const catalogue = readFileSync(path.join(REPO, 'scripts', 'lantest-tests.json'), 'utf8')
    expect(inDoc).toBe(renderTests(catalogue))
    expect(inDoc).toContain('| 12 | Cache validation efficiency')
  })
})
