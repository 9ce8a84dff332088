// The selection grammars of the 'tests', 'speedtest', 'spotlight' and 'bigdir' inputs are the gate's
// own: the action asks scripts/gate --check (settings.ts). Against the fixture
// the gate is tested on (scripts/tests/gate.bats), the action accepts and
// refuses what the gate does, with the gate's normalised answer.
import { mkdtempSync, readFileSync, symlinkSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { InputError, parseInputs, type Config } from './inputs.js'

interface Specs {
  tests: { accept: Record<string, number[] | { catalogue: string }>; reject: string[] }
  speedtest: { accept: Record<string, string>; reject: string[] }
  spotlight: { accept: Record<string, string>; reject: string[] }
  bigdir: { accept: Record<string, string>; reject: string[] }
}

const REPO = path.resolve(import.meta.dirname, '..', '..')
const specs = JSON.parse(
  readFileSync(path.join(REPO, 'scripts', 'tests', 'fixtures', 'specs.json'), 'utf8')
) as Specs
const actionDir = mkdtempSync(path.join(os.tmpdir(), 'afpbench-specs-'))
symlinkSync(path.join(REPO, 'scripts'), path.join(actionDir, 'scripts'))

function parse(inputs: Record<string, string>): Config {
  return parseInputs((name) => inputs[name], { workspace: os.tmpdir(), actionDir })
}

// A fixture's selection: the tests, or a group of afpbench's catalogue
const catalogue = JSON.parse(
  readFileSync(path.join(REPO, 'scripts', 'lantest-tests.json'), 'utf8')
) as { tests: Array<{ id: number; group: string }> }
function selection(want: number[] | { catalogue: string }): number[] {
  if (Array.isArray(want)) return want
  return catalogue.tests
    .filter((t) => want.catalogue === 'all' || t.group === want.catalogue)
    .map((t) => t.id)
}

// "1-3,10" -> [1, 2, 3, 10]
function expand(ranges: string): number[] {
  return ranges.split(',').flatMap((r) => {
    const [lo, hi = lo] = r.split('-').map(Number)
    return Array.from({ length: hi - lo + 1 }, (_, i) => lo + i)
  })
}

describe('the selection grammars are the gate’s (scripts/tests/fixtures/specs.json)', () => {
  it.each(Object.entries(specs.tests.accept))('tests %j selects %j', (spec, want) => {
    expect(expand(parse({ tests: spec }).gate.AFPBENCH_TESTS)).toEqual(selection(want))
  })
  it.each(specs.tests.reject)('tests %j is refused, naming the input', (spec) => {
    expect(() => parse({ tests: spec })).toThrow(InputError)
    expect(() => parse({ tests: spec })).toThrow(/^input 'tests': /)
  })
  it.each(Object.entries(specs.speedtest.accept))('speedtest %j is %j', (spec, want) => {
    expect(parse({ tests: '1', speedtest: spec }).gate.AFPBENCH_SPEEDTEST).toBe(want)
  })
  it.each(specs.speedtest.reject)('speedtest %j is refused, naming the input', (spec) => {
    expect(() => parse({ tests: '1', speedtest: spec })).toThrow(/^input 'speedtest': /)
  })
  describe.each(['spotlight', 'bigdir'] as const)('%s', (input) => {
    const env = `AFPBENCH_${input.toUpperCase()}`
    it.each(Object.entries(specs[input].accept))(`${input} %j is %j`, (spec, want) => {
      expect(parse({ tests: '1', [input]: spec }).gate[env]).toBe(want)
    })
    it.each(specs[input].reject)(`${input} %j is refused, naming the input`, (spec) => {
      expect(() => parse({ tests: '1', [input]: spec })).toThrow(new RegExp(`^input '${input}': `))
    })
  })
})
