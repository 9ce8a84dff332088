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
import { baseEnv, gateEnv } from './gate-env.js'
import { Input } from './names.js'
import { keptFromChildren } from './runner.js'
import { readSettingsTable } from './settings.js'
import { testConfig } from './testing/config.js'

const REPO = path.resolve(import.meta.dirname, '..', '..')
const table = readSettingsTable(REPO)
const byEnv = new Map(table.map((s) => [s.env, s]))
const rows = (compose: string): string[] =>
  table.filter((s) => s.compose === compose).map((s) => s.env)

interface ComposeFile {
  'x-gate-settings': Record<string, unknown>
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
    const gate = readFileSync(path.join(REPO, 'scripts', 'gate'), 'utf8')
    const known = gate.slice(
      gate.indexOf('check_value() {'),
      gate.indexOf('\n}\n', gate.indexOf('check_value() {'))
    )
    for (const s of table)
      expect(known, `${s.env}: ${s.grammar}`).toMatch(
        new RegExp(`(^|[\\s|])${s.grammar}[\\s|)]`, 'm')
      )
  })

  it('is what the gate defaults to: --check with nothing set answers the defaults', () => {
    const r = spawnSync(path.join(REPO, 'scripts', 'gate'), ['--check'], {
      env: { PATH: process.env.PATH },
      encoding: 'utf8'
    })
    expect(r.status, r.stderr).toBe(0)
    const answer = JSON.parse(r.stdout) as { settings: Record<string, string> }
    // every setting but the passwords, in the table's order
    expect(Object.keys(answer.settings)).toEqual(
      table.map((s) => s.env).filter((e) => !e.endsWith('_PASS'))
    )
    for (const s of table)
      if (s.default !== '' && !s.env.endsWith('_PASS'))
        expect(answer.settings[s.env], s.env).toBe(s.default)
    // derived where the table says what empty means
    expect(answer.settings.AFPBENCH_ITERATIONS).toBe('5')
  })
})

describe('compose.yaml', () => {
  it("both clients take x-gate-settings, which lists the table's 'settings' rows exactly", () => {
    expect(Object.keys(compose['x-gate-settings']).sort()).toEqual(rows('settings').sort())
    for (const service of ['client', 'client-instr'])
      for (const env of rows('settings'))
        expect(compose.services[service].environment, `${service} ${env}`).toHaveProperty(env)
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

describe('the action', () => {
  const config = testConfig()
  const set = new Set([
    ...Object.keys(
      gateEnv(config, { resultsDir: '/r', baseline: '', thresholds: '', trend: '', reference: '' })
    ),
    ...Object.keys(baseEnv(config, 'h', '1')),
    ...Object.keys(composeEnv(config, '/tmp/afpbench-settings-test', '/action', 'abc')),
    // host:port (measure.ts): the server, the procfs and the binary it built
    'AFP_HOST',
    'AFP_PORT',
    'PROC_IO',
    'BASE_PROC_IO',
    'AFPBENCH_BIN'
  ])

  it('sets every setting an input sets', () => {
    for (const s of table)
      if (s.input !== null) expect(set, `${s.env} (${s.input})`).toContain(s.env)
  })

  it('sets no gate setting the table does not have', () => {
    const gateLike = [...set].filter((e) =>
      /^(AFPBENCH_|AFP_(HOST|PORT|USER|PASS)$|BASE_AFP|SHARE_NAME|(BASE_)?PROC_IO)/.test(e)
    )
    // compose's own (the mounts and the build), not the gate's
    const composeOwn = ['AFPBENCH_RESULTS_DIR', 'AFPBENCH_BASELINES_DIR']
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
